"""The VRAM page: what each card holds, how the knobs and the load change it, and the chosen layouts."""
