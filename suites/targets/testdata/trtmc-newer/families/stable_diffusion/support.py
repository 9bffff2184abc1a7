from tensorrt_model_connect.model_support import family_support

describe = family_support(
    pipeline_classes=("StableDiffusionPipeline",),
    tasks=("image_generation",),
    default_task="image_generation",
)
