"""PyTorch Field Notes' machinery: every code block is read, run, stored and rendered one way.

One module per job, each imported by name (``pip install -e .`` makes the package importable):

- :mod:`fieldnotes.languages`: the language list and every interface string;
- :mod:`fieldnotes.blocks`: a page's executed blocks, as a reader sees them (includes expanded);
- :mod:`fieldnotes.runner`: the page interpreter (a subprocess per page);
- :mod:`fieldnotes.execute`: the one executor, which starts, watches and cleans up after it;
- :mod:`fieldnotes.results`: what a run produced, typed, across the process boundary;
- :mod:`fieldnotes.store`: successful runs kept under a key of everything that can change them;
- :mod:`fieldnotes.runs`: which pages run and which are reused (a pool over the store);
- :mod:`fieldnotes.render`: outputs into Markdown and notebooks;
- :mod:`fieldnotes.build`: the MkDocs events of execution; :mod:`fieldnotes.pitfalls`: the
  pitfall catalogue, with :mod:`fieldnotes.wordings` (each torch version's words for a pitfall's
  error); :mod:`fieldnotes.pytest_plugin`: every block as a pytest item;
- :mod:`fieldnotes.notebooks`: a notebook page keeps only the CSS it uses, and no CDN loader.
"""
