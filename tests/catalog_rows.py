"""Catalog rows tests share: a user GPU with no price, for the paths that must show no cost."""

UNPRICED_GPU = """
gpus:
  - id: my-card
    name: My Card
    memory_gb: 80
    memory_bandwidth_gb_per_s: 2000
    dense_tflops: {bf16: 400}
    source: "my own datasheet"
"""
