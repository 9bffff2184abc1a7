from tensorrt_model_connect.model_support import family_support

describe = family_support(
    tasks=("image_generation",),
)
