"""Deployment files: the Procfile reader (procfile.py), systemd units and the reverse-proxy example."""
