"""What the oracle scripts of tests/oracle/ share.

Each script runs as a program (its path is in CI and in the headers of the
data it recorded) and puts tests/oracle on ``sys.path`` to import from
here:

- :mod:`harness.child`: the one way a script runs a child process, to its
  end (:func:`~harness.child.run`) or kept answering JSON lines
  (:class:`~harness.child.Worker`); Triton runs in children because a
  failed assertion aborts the process that hits it.
- :mod:`harness.venvs`: the Python of each Triton wheel's venv
  (``tests/oracle/venv.sh``).
- :mod:`harness.crate`: our crate asked through its CLI: the release table
  (``releases --json``) and the attribute printer (``print-attr``); no
  script writes a release list or a TTGIR attribute itself.
"""
