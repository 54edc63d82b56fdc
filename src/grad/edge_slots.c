/* edge_slots.c - next_functions in PyTorch's layout.
 *
 * A node's inputs are the tensor arguments of its call, each once.  PyTorch
 * shows one edge per differentiable tensor parameter of the op's schema
 * instead, and graph-walking code (graph drawings, next_functions[i][0]
 * navigation, hooks keyed by position) depends on that layout:
 *   - a Python number where the schema takes a tensor (a * 2, where(c, a, 0.))
 *     is a wrapped-number tensor: an edge (None, 0);
 *   - an absent optional tensor (conv2d's bias, layer_norm's weight, clamp's
 *     min when max is a tensor) is an edge (None, 0);
 *   - index, mask and condition tensors are no edge.
 * The inputs stay as they are (the engine and the formulas read them);
 * next_functions and a node hook's grad_inputs read the slots.  The layout is worked out when the node is
 * made, since a backward frees the saved arguments but not the edges.      */
#include <Python.h>
#include <string.h>

#include "grad/py_grad.h"

/* The slot of argument a: the input it was saved as, -1 for a None edge
 * (absent, None or a number), -2 when it is none of these (leave the node
 * as it is). */
static int slot_of(tl_py_node *node, PyObject *a)
{
  if (a && tl_py_is_tensor(a)) {
    for (int i = 0; i < node->ninputs; i++)
      if (node->inputs[i].obj == a)
        return i;
    return -2;
  }
  return !a || a == Py_None || PyNumber_Check(a) ? -1 : -2;
}

static bool tensor_arg(const tl_py_node *node, int pos, const char *name)
{
  PyObject *a = tl_grad_node_arg(node, pos, name);
  return a && tl_py_is_tensor(a);
}

/* present, and not a tensor (a Python number in a tensor's place) */
static bool number_arg(const tl_py_node *node, int pos, const char *name)
{
  PyObject *a = tl_grad_node_arg(node, pos, name);
  return a && !tl_py_is_tensor(a);
}

/* Each entry: argument position and keyword name; up to three. */
typedef struct {
  int pos;
  const char *name;
} tl_slot_arg;

static void layout(tl_py_node *node, const tl_slot_arg *want, int n)
{
  int8_t slots[3];
  for (int k = 0; k < n; k++) {
    int s = slot_of(node, tl_grad_node_arg(node, want[k].pos, want[k].name));
    if (s == -2)
      return;
    slots[k] = (int8_t)s;
  }
  /* one slot per input at most: node hooks map grad_inputs back through
   * the slots (py_engine.c).  A tensor passed twice and saved as one input
   * (dot(v, v)) keeps its single edge. */
  for (int k = 0; k < n; k++)
    for (int j = 0; j < k; j++)
      if (slots[k] >= 0 && slots[k] == slots[j])
        return;
  /* already the inputs' layout: nothing to keep */
  bool same = n == node->ninputs;
  for (int k = 0; same && k < n; k++)
    same = slots[k] == k;
  if (same)
    return;
  memcpy(node->slots, slots, (size_t)n);
  node->nslots = (int8_t)n;
}

void tl_grad_edge_slots(tl_py_node *node)
{
  static const tl_slot_arg binary[] = {{0, "input"}, {1, "other"}};
  static const tl_slot_arg where[] = {{1, "input"}, {2, "other"}};
  static const tl_slot_arg first[] = {{0, "input"}};
  static const tl_slot_arg clamp[] = {{0, "input"}, {1, "min"}, {2, "max"}};
  static const tl_slot_arg conv[] = {{0, "input"}, {1, "weight"}, {2, "bias"}};
  static const tl_slot_arg layer_norm[] = {{0, "input"}, {2, "weight"}, {3, "bias"}};
  static const tl_slot_arg masked_fill[] = {{0, "input"}, {2, "value"}};
  static const tl_slot_arg put[] = {{0, "input"}, {2, "values"}};
  static const tl_slot_arg swapped[] = {{1, "other"}, {0, "input"}};
  static const tl_slot_arg second[] = {{1, "other"}};
  switch (node->formula) {
  case TL_OP_ADD:
  case TL_OP_MUL:
  case TL_OP_DIV:
  case TL_OP_TRUNC_DIVIDE:
  case TL_OP_FLOOR_DIVIDE:
    /* 1 + a is add(a, 1), 2 / a reciprocal(a) * 2: the tensor first */
    layout(node, number_arg(node, 0, "input") ? swapped : binary, 2);
    break;
  case TL_OP_SUB: /* 1 - a is rsub(a, 1), its Scalar overload: self alone */
    if (number_arg(node, 0, "input"))
      layout(node, second, 1);
    else
      layout(node, binary, 2);
    break;
  case TL_OP_WHERE:
    layout(node, where, 2);
    break;
  case TL_OP_CLAMP: /* the Scalar overload has self alone */
    layout(node, clamp, tensor_arg(node, 1, "min") || tensor_arg(node, 2, "max") ? 3 : 1);
    break;
  case TL_OP_CONVOLUTION:
  case TL_OP_NATIVE_BATCH_NORM: /* (input, weight, bias, running_mean, ...) */
    layout(node, conv, 3);
    break;
  case TL_OP_NATIVE_LAYER_NORM:
    layout(node, layer_norm, 3);
    break;
  case TL_OP_MASKED_FILL: /* a number value: the Scalar overload, self alone */
    layout(node, masked_fill, tensor_arg(node, 2, "value") ? 2 : 1);
    break;
  case TL_OP_INDEX_PUT:
  case TL_GRAD_SETITEM:
    layout(node, put, 2);
    break;
  case TL_OP_GATHER:
  case TL_OP_INDEX_SELECT:
  case TL_OP_EMBEDDING:
  case TL_OP_NLL_LOSS_ND:
  case TL_GRAD_GETITEM:
    layout(node, first, 1);
    break;
  default:
    break;
  }
}
