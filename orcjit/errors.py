"""The one exception orcjit raises for bad files and bad arguments."""

from __future__ import annotations


class OrcError(ValueError):
    """A file that is not valid ORC, or an argument orcjit cannot honour.

    The message names what is wrong and where (a byte offset, a stream, a column), so that a user can tell a
    truncated download from a corrupt writer from a typo in a call.
    """
