"""Streamlit custom components of the app (front-end files ship inside the package: no CDN)."""
