"""The graph side of the pipeline (docs/architecture.md, "Layers"): the :class:`Graph` type
and its normalisation (``graph``, ``_normalise``), the generated families (``generators``),
graph specs and where they resolve (``sources``), the file formats (``formats``) and the
downloads (``fetch``). Nothing here imports the algorithms, the bench or the report."""
