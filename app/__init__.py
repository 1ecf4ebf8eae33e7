"""Multi-node PyTorch DDP on HPC clusters: trainer (`app.train`), connectivity check (`app.check`)."""

__version__ = "0.1.0"
