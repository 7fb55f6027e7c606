"""Compose a rules file's YAML and bound what its aliases expand to, before anything walks it.

A YAML alias (`*a`) refers to an anchored node (`&a`) instead of repeating it, so a file of a
few hundred bytes can describe 10^9 nodes (the "billion laughs"): ten keys each referring ten
times to the previous one. PyYAML composes such a document as a small graph of nodes, and
its constructor keeps the sharing, but everything that then walks the data as a tree --
pydantic's validation, the merge, the JSON cache -- expands it: a 742-byte user layer took
18 s and 1.9 GB and was then accepted; 10^9 never ended.

So the document is composed with PyYAML's own composer (libyaml's when available, which
also limits nesting to 1,000 levels), and the node graph is measured once, each node after
its children, an aliased node only once (its totals are reused wherever it is referred to):
what the document *would be* when expanded, in time linear in the size of the file. Over
any bound it is refused with a `YamlLimit` naming the line of the first node whose expansion
crosses it:

* MAX_NODES nodes,
* MAX_SCALAR_BYTES bytes of scalar text,
* MAX_DEPTH levels of nesting,

and a node that contains an alias to itself (a recursive, endless structure) is refused too.
The bounds apply to every layer; the built-in rules use a small fraction of them.
"""

import yaml
from yaml.error import MarkedYAMLError
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

MAX_NODES = 50_000
MAX_SCALAR_BYTES = 1 << 20
MAX_DEPTH = 64

_Loader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


_RECURSIVE = ("this node contains an alias to itself (a recursive structure without end); "
              "write the entries out")


class YamlLimit(MarkedYAMLError):
    """The document expands beyond a bound; ``problem`` and ``problem_mark`` locate it."""


def _children(node):
    if isinstance(node, SequenceNode):
        return node.value
    if isinstance(node, MappingNode):
        return [n for pair in node.value for n in pair]
    return ()


def measure(root) -> tuple:
    """(nodes, scalar bytes, depth) of the document at ``root`` when expanded. Raises
    YamlLimit at the first node (in post-order) over a bound, or on a recursive alias."""
    sizes = {}                  # id(node) -> (nodes, bytes, height)
    on_path = set()             # ids of the nodes being measured (a cycle comes back to one)
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            if isinstance(node, ScalarNode):
                total = (1, len(node.value.encode("utf-8", "surrogatepass")), 1)
            else:
                nodes, size, height = 1, 0, 0
                for child in _children(node):
                    c = sizes[id(child)]
                    nodes += c[0]
                    size += c[1]
                    height = max(height, c[2])
                total = (nodes, size, height + 1)
            sizes[key] = total
            _check(total, node)
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise YamlLimit(None, None, _RECURSIVE, node.start_mark)
        on_path.add(key)
        stack.append((node, True))
        for child in reversed(_children(node)):
            if id(child) in on_path:
                raise YamlLimit(None, None, _RECURSIVE, child.start_mark)
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(root)]


def _check(total, node) -> None:
    nodes, size, depth = total
    what = None
    if nodes > MAX_NODES:
        what = f"more than {MAX_NODES:,} nodes"
    elif size > MAX_SCALAR_BYTES:
        what = f"more than {MAX_SCALAR_BYTES:,} bytes of text"
    elif depth > MAX_DEPTH:
        what = f"more than {MAX_DEPTH} levels of nesting"
    if what is not None:
        raise YamlLimit(None, None, f"the YAML from here expands to {what} (aliases repeat "
                        "what they refer to); rules files are small: write the entries out, "
                        "or use fewer aliases", node.start_mark)


def compose(text: str):
    """(loader, root node or None), the root measured. Raises yaml.YAMLError (YamlLimit over
    a bound). Construct with ``loader.construct_document(node)``, then ``loader.dispose()``."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            measure(node)
        return loader, node
    except BaseException:
        loader.dispose()
        raise
