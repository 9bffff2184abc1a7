from tensorrt_model_connect.model_support import family_support

# Contract double: the reference family declares its task as TRTMC families do (support.py).
describe = family_support(tasks=("transcription",), default_task="transcription")
