"""Teachers' classroom kit: build, release, grade (run as `python -m assignments.<module>`)."""
