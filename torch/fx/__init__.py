"""torch.fx: capture a program as a Graph of operations (symbolic_trace), edit it, and turn it back
into Python code (GraphModule). Interpreter and Transformer rerun a graph node by node;
replace_pattern rewrites subgraphs."""
from torch.fx._symbolic_trace import PH, ProxyableClassMeta, Tracer, symbolic_trace, wrap  # noqa: F401
from torch.fx.graph import Graph
from torch.fx.graph_module import GraphModule
from torch.fx.interpreter import Interpreter, Transformer
from torch.fx.node import Node, has_side_effect, map_arg
from torch.fx.proxy import Proxy
from torch.fx.subgraph_rewriter import replace_pattern

__all__ = ["symbolic_trace", "Tracer", "wrap", "Graph", "GraphModule", "Interpreter", "Transformer", "Node",
           "Proxy", "replace_pattern", "has_side_effect", "map_arg"]
