"""annotate.py - ``annotate(value, type)``: give a traced value a type, which
graph printing and the generated code show (``add : torchlike.Tensor = ...``)."""
from .proxy import Proxy

__all__ = ["annotate"]


def annotate(val, type):
    """Set the type of a traced value's node (once); other values pass as they are."""
    if isinstance(val, Proxy):
        if val.node.type:
            raise RuntimeError(f"Tried to annotate a value that already had a type on it! "
                               f"Existing type is {val.node.type} and new type is {type}. "
                               "This could happen if you tried to annotate a function "
                               "parameter value (in which case you should use the type slot "
                               "on the function signature) or you called annotate on the same "
                               "value twice")
        val.node.type = type
        return val
    return val
