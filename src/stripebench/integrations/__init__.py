"""stripebench tasks inside other frameworks: Inspect AI (`inspect_eval`) and Harbor
(`harbor_export`, with `harbor_runtime` running inside the exported container).

Both drive the harness's own trial steps (`standing`), so a trial there is set up and
graded exactly as `stripebench run` does it.
"""
