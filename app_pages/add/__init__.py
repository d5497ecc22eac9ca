"""The Add page: a GPU or a model from a form, a Hugging Face config or a YAML file, for this visit."""
