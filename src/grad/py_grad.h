/* py_grad.h - the tape: grad mode, graph nodes, the recorder, the engine and
 * the derivative formulas.
 *
 * The tape holds Python objects (tensors, hooks, custom Functions), so this
 * whole layer is a py_ layer.  What is recorded is a *call*: a node keeps the
 * arguments the op was called with (tensors among them, each with its storage
 * version at that moment), aliases of its outputs, and one edge per input
 * tensor that requires grad.  A formula reads the saved call back and returns
 * the gradient of each input by calling torchlike ops, so formulas run on any
 * device and are recorded themselves when create_graph=True.
 *
 * Formula ids: the op enum of ops.def (an op is its own formula), then the
 * functions of grad_fns.def (shape ops, views, linalg ... that are not in the
 * op registry).                                                              */
#ifndef TL_PY_GRAD_H
#define TL_PY_GRAD_H

#include "ndcore/bindings/py_tensor.h"

enum {
#define TL_GRAD_FN(ID, name, flags) TL_GRAD_##ID,
  TL_GRAD_FIRST_ = TL_OP_COUNT - 1,
#include "grad/grad_fns.def"
#undef TL_GRAD_FN
  TL_GRAD_COUNT
};

/* grad_fns.def flags */
enum {
  TL_GRAD_F_INPLACE = 1, /* writes its first argument (fill_, copy_, __setitem__) */
  TL_GRAD_F_VIEW = 2,    /* may return a view of its first argument */
  TL_GRAD_F_SLOT = 4,    /* a type slot that records itself (__getitem__, __setitem__) */
  TL_GRAD_F_FIRST = 8,   /* only the first argument is an input: the others give a shape
                          * or dtype (view_as, expand_as), as in PyTorch */
  TL_GRAD_F_MULTI = 16,  /* returns several views (split, chunk, unbind): they may not be
                          * written in place while recorded (PyTorch's rule) */
  TL_GRAD_F_SAME = 32,   /* an output showing its argument unchanged is that argument
                          * (atleast_*d, broadcast_tensors) */
};

/* Grad mode (tl_py_grad_enabled) and tl_py_grad_wanted live in py_tensor.h:
 * the op call path asks them before calling the recorder. */

/* ---- nodes ---- */
typedef struct tl_py_node tl_py_node;
typedef struct {
  tl_py_node *fn; /* NULL: this input needs no gradient */
  int nr;         /* which output of fn */
} tl_edge;

/* A saved input tensor: the object (from the saved arguments), its storage
 * version when saved, and where its gradient goes. */
typedef struct {
  PyObject *obj;
  uint32_t version;
  tl_edge edge;
} tl_saved_input;

typedef enum {
  TL_NODE_FORMULA,    /* an op or grad_fns.def function */
  TL_NODE_ACCUMULATE, /* a leaf: adds into leaf.grad */
  TL_NODE_PYTHON,     /* a custom autograd.Function */
} tl_node_kind;

struct tl_py_node {
  PyObject_HEAD
  tl_node_kind kind;
  int formula;
  PyObject *name; /* "MulBackward0" */
  /* the call: nargs positional then the keyword values of kwnames */
  PyObject **args;
  Py_ssize_t nargs, nall;
  PyObject *kwnames;
  int ninputs;
  tl_saved_input *inputs;
  int noutputs;
  PyObject **outputs; /* detached aliases of the outputs (NULL: not differentiable) */
  uint32_t *out_versions;
  PyObject *ctx;      /* PYTHON: the FunctionCtx; ACCUMULATE: the leaf tensor */
  PyObject *pre_hooks; /* list of (output_nr, hook) from Tensor.register_hook */
  PyObject *retained;  /* list of (output_nr, weakref to tensor) from retain_grad() */
  PyObject *hooks;     /* list of node hooks fn(grad_inputs, grad_outputs) */
  PyObject *dict;
  PyObject *packed;    /* saved-tensor hooks: (slot, item, packed) per packed tensor */
  PyObject *unpack;    /* ... and the unpack hook (py_saved_hooks.c) */
  /* next_functions as PyTorch shows them, where they differ from the inputs
   * (edge_slots.c): slot k is inputs[slots[k]], or (None, 0) when -1.
   * nslots 0: next_functions are the inputs. */
  int8_t slots[3];
  int8_t nslots;
  uint64_t seq;       /* creation order: later nodes run first among the ready ones */
  bool released;      /* saved state freed by a backward without retain_graph */
};

extern PyTypeObject *tl_py_node_type;
int tl_py_node_init(PyObject *module);
tl_py_node *tl_py_node_new(tl_node_kind kind, int formula, PyObject *name);
/* The AccumulateGrad node of a leaf that requires grad (made on first use). */
tl_py_node *tl_py_node_accumulator(tl_py_tensor *leaf);
/* node_creation_hook: call this thread's hooks with a node that is complete
 * (edges, outputs and saved values in place); -1 with the hook's error. */
int tl_py_node_created(tl_py_node *node);
/* Free what the node saved; later use raises the "backward a second time" error. */
void tl_py_node_release(tl_py_node *node);
/* The edge a gradient for tensor t follows (fn NULL when t needs none); fn
 * is a new reference. */
tl_edge tl_py_tensor_edge(tl_py_tensor *t);
/* Save `obj` (source itself, or its stub or copy) as an input whose gradient
 * goes where source's does. */
int tl_py_saved_input_init(tl_saved_input *in, PyObject *obj, tl_py_tensor *source);
/* node_names.c: "MulBackward0" from "mul"; the name PyTorch gives the node of
 * a call of `formula` (its overload: SumBackward1 for sum(dim)), result the
 * call's result; and the class of the nodes of a name (a new reference is
 * not returned: the class lives as long as the process). */
PyObject *tl_py_node_name(const char *op_name);
PyObject *tl_grad_node_name(int formula, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames, PyObject *result);
PyTypeObject *tl_py_node_class(PyObject *name);

/* edge_slots.c: fill node->slots from the saved call (the node's inputs and
 * arguments in place). */
void tl_grad_edge_slots(tl_py_node *node);
/* next_functions' length, and the input slot k shows (-1: a (None, 0) edge) */
static inline int tl_grad_nslots(const tl_py_node *node)
{
  return node->nslots ? node->nslots : node->ninputs;
}
static inline int tl_grad_slot(const tl_py_node *node, int k)
{
  return node->nslots ? node->slots[k] : k;
}

/* ---- recording ---- */
/* Run impl(args) with grad mode off and record the call as formula `formula`.
 * inplace: the call writes args[0]. */
PyObject *tl_grad_record(int formula, PyObject *impl, PyObject *const *args, size_t nargsf,
                         PyObject *kwnames, int flags);
/* Wrap the functions of grad_fns.def (module functions and Tensor methods). */
int tl_py_grad_init(PyObject *module);
int tl_py_tensor_grad_init(void);
int tl_py_function_init(PyObject *module);
int tl_py_formula_module(PyObject *module);
/* Make `out` the output of a node (for custom Functions and in-place ops). */
int tl_grad_set_history(PyObject *out, tl_py_node *node, int nr);
/* A new tensor object sharing t's view, without history. */
PyObject *tl_py_tensor_alias(PyObject *t);

/* What a formula does not read back (tl_grad_drops, from the formula files'
 * init): the node then keeps metadata stubs of those tensors, not their data. */
enum {
  TL_GRAD_DROP_INPUTS = 1,
  TL_GRAD_DROP_OUTPUTS = 2,
  /* an input's value is read only for the other inputs' gradients (mul):
   * kept only when another tensor argument requires grad */
  TL_GRAD_DROP_UNPAIRED = 4,
  /* the first output only: the others are read (dropout's mask) */
  TL_GRAD_DROP_FIRST_OUTPUT = 8,
};
void tl_grad_drops(int formula, int what);
bool tl_grad_is_stub(PyObject *t);
/* A metadata stub of tensor t (t itself when its device has none). */
PyObject *tl_grad_stub(PyObject *t);
/* Rebuild the history of a view whose base got a new one since the view was
 * current (an as_strided node over the base's); 0, or -1 with PyTorch's error
 * for a view made in no_grad or inference mode. */
int tl_grad_view_refresh(PyObject *t);
/* An output of a custom Function that is a view: recorded now (not a no_grad
 * view), and refused in-place writes as PyTorch does. */
void tl_grad_view_of_function(PyObject *t);

/* ---- saved-tensor hooks (py_saved_hooks.c) ---- */
/* This thread's innermost (pack, unpack) pair, NULL when none is set: the
 * recorder's only test. */
extern _Thread_local PyObject *tl_saved_hooks;
/* Pack what a new node keeps (outs: the call's outputs, what pack sees). */
int tl_grad_pack_node(tl_py_node *node, PyObject *outs);
/* Swap unpacked tensors in for a run of the node's formula, then back
 * (restore); swapped is an empty list the caller owns. */
int tl_grad_unpack_node(tl_py_node *node, PyObject *swapped, bool restore);
int tl_py_saved_hooks_init(PyObject *module);

/* ---- formulas ---- */
typedef struct {
  tl_py_node *node;
  int formula;
  PyObject **grads;    /* per output; NULL where no gradient arrived */
  PyObject **results;  /* per saved input: the gradient to send (new refs) */
  const bool *wanted;  /* per input: leads to a wanted gradient (NULL: every input) */
  PyObject *scope;     /* list owning every temporary the formula made */
  bool create_graph;
} tl_grad_ctx;

typedef void (*tl_grad_formula)(tl_grad_ctx *c);
extern tl_grad_formula tl_grad_formulas[TL_GRAD_COUNT];
/* Ops with float results that are not differentiable (nextafter): a formula
 * file sets their flag and their out-of-place calls are not recorded, so the
 * results have no grad_fn.  In-place calls are still recorded (the target's
 * history must not silently survive the write): backward then raises. */
extern bool tl_grad_nondifferentiable[TL_GRAD_COUNT];
/* In-place calls that may write a dtype without gradients from arguments that
 * require grad (bernoulli_(p) into a bool mask): such a write is made and not
 * recorded; for other formulas it raises. */
extern bool tl_grad_writes_any_dtype[TL_GRAD_COUNT];
/* Name of formula id (the op or function name). */
const char *tl_grad_formula_name(int id);

/* Formula helpers.  They return borrowed references owned by c->scope and
 * propagate failure: given NULL (an error is already set) they return NULL,
 * so a formula is written as plain nested calls and checked once. */
PyObject *tl_grad_arg(tl_grad_ctx *c, int pos, const char *name); /* raw argument or NULL */
/* the same, from a node's saved call, outside a formula (edge_slots.c) */
PyObject *tl_grad_node_arg(const tl_py_node *node, int pos, const char *name);
PyObject *tl_grad_value(tl_grad_ctx *c, int pos, const char *name); /* tensor, version checked */
PyObject *tl_grad_result(tl_grad_ctx *c, int i);                   /* output i, version checked */
PyObject *tl_grad_out(tl_grad_ctx *c, int i);                      /* grad of output i (zeros if none) */
bool tl_grad_has_out(tl_grad_ctx *c, int i);
bool tl_grad_needs(tl_grad_ctx *c, PyObject *input);               /* input wants a gradient */
void tl_grad_send(tl_grad_ctx *c, PyObject *input, PyObject *grad); /* accumulate input's grad */
/* Call torchlike function `name` (a _C function, or a Tensor method with self
 * first).  fmt is a Py_BuildValue format of the positional arguments,
 * optionally followed by '|' and a dict format of keyword arguments:
 *   tl_grad_call(c, "sum", "Oi|{s:O}", g, 0, "keepdim", Py_True)           */
PyObject *tl_grad_call(tl_grad_ctx *c, const char *name, const char *fmt, ...);
PyObject *tl_grad_keep(tl_grad_ctx *c, PyObject *owned); /* hand a new reference to the scope */
/* The device the gradients are on, kept by the scope: where a formula makes its
 * constants (the node may keep only metadata stubs, so an incoming gradient is
 * asked rather than an input). */
PyObject *tl_grad_device(tl_grad_ctx *c);
/* x's shape as a torchlike.Size. */
PyObject *tl_grad_shape(tl_grad_ctx *c, PyObject *x);
/* The gradient g of a reduction of x over dim (None, int or tuple), reshaped
 * so that it broadcasts against x: reduced dims put back as size 1 unless
 * keepdim was true. */
PyObject *tl_grad_unreduce(tl_grad_ctx *c, PyObject *g, PyObject *x, PyObject *dim, PyObject *keepdim);

/* The gradient of a p-norm of x over dim (formulas_reduce.c), for norm and
 * linalg.vector_norm: gu and ru are the output's gradient and value with the
 * reduced dims kept as size 1.  Ties of the inf-norms share evenly; 0 where
 * the norm is 0 (p >= 1) or x is 0 (p < 1), as PyTorch. */
PyObject *tl_grad_norm_backward(tl_grad_ctx *c, PyObject *gu, PyObject *x, PyObject *ru, double p,
                                PyObject *dim);

/* Raise PyTorch's error for a derivative it lacks (formulas_missing.c):
 * declared, NotImplementedError "the derivative for 'aten' is not
 * implemented."; else RuntimeError "derivative for aten::aten is not
 * implemented" (the node PyTorch calls NotImplemented). */
void tl_grad_not_implemented(const char *aten, bool declared);

/* Shorthands used by the formula files (they expect a `c` in scope). */
#define ARG(i, name) tl_grad_arg(c, i, name)
#define X(i, name) tl_grad_value(c, i, name)
#define R(i) tl_grad_result(c, i)
#define G(i) tl_grad_out(c, i)
#define SEND(input, grad) tl_grad_send(c, input, grad)
#define NEEDS(input) tl_grad_needs(c, input)
#define CALL(name, ...) tl_grad_call(c, name, __VA_ARGS__)
#define SHAPE(x) tl_grad_shape(c, x)

/* Formula files register the ids they handle (and what those formulas never
 * read back) from static arrays of ids. */
void tl_grad_register(const int *ids, size_t n, tl_grad_formula fn, int drops);
#define TL_GRAD_REGISTER(ids, fn, drops) tl_grad_register(ids, sizeof ids / sizeof *ids, fn, drops)
#define TL_GRAD_DROP(ids, drops) tl_grad_register(ids, sizeof ids / sizeof *ids, NULL, drops)
void tl_grad_formulas_elementwise_init(void);
void tl_grad_formulas_reduce_init(void);
void tl_grad_formulas_shape_init(void);
void tl_grad_formulas_index_init(void);
void tl_grad_formulas_linalg_init(void);
void tl_grad_formulas_inplace_init(void);
void tl_grad_formulas_bessel_init(void);
void tl_grad_formulas_special_init(void);
void tl_grad_formulas_random_init(void);
void tl_grad_formulas_missing_init(void);
void tl_grad_formulas_nn_softmax_init(void);
void tl_grad_formulas_nn_activation_init(void);
void tl_grad_formulas_nn_dropout_init(void);
void tl_grad_formulas_nn_embedding_init(void);
void tl_grad_formulas_nn_pool_init(void);
void tl_grad_formulas_nn_grid_init(void);
void tl_grad_formulas_nn_rnn_init(void);
void tl_grad_formulas_nn_attention_init(void);
void tl_grad_formulas_nn_conv_init(void);
void tl_grad_formulas_nn_norm_init(void);
void tl_grad_formulas_nn_loss_init(void);
/* The derivative of a fused src/nn backward op whose positional parameters
 * are `params` (NULL-terminated): torchlike/nn/_backward_vjp.py's
 * vector-Jacobian product of it written with generic ops (formulas_nn_norm.c). */
void tl_grad_nn_composed_vjp(tl_grad_ctx *c, const char *const *params);

/* ---- the engine ---- */
int tl_py_engine_init(PyObject *module);

/* ---- anomaly detection (anomaly.c) ---- */
/* Process-wide, as PyTorch's: the recorder and the engine test
 * tl_anomaly_enabled and call the rest only when it is set. */
extern bool tl_anomaly_enabled, tl_anomaly_check_nan;
/* Keep node's creation stack (and the node the engine runs) in its metadata. */
int tl_anomaly_record(tl_py_node *node);
/* The node whose formula runs from now on; returns the one to restore. */
tl_py_node *tl_anomaly_enter(tl_py_node *node);
void tl_anomaly_leave(tl_py_node *outer);
/* Raise PyTorch's error when a gradient the node computed holds a NaN. */
int tl_anomaly_check_nan_results(tl_py_node *node, PyObject *const *results, int n);
/* With the node's error set: warn with where it (and its parents) were made. */
void tl_anomaly_report(tl_py_node *node);
int tl_py_anomaly_init(PyObject *module);

/* ---- selective checkpointing's op policy (op_policy.c) ---- */
/* Set: the recorder calls ops through tl_grad_policy_call.  The count of
 * threads with one set is tested first. */
extern _Thread_local PyObject *tl_grad_op_policy;
extern int tl_grad_op_policies;
PyObject *tl_grad_policy_call(int formula, PyObject *impl, PyObject *const *args, size_t nargsf,
                              PyObject *kwnames);
int tl_py_op_policy_init(PyObject *module);

#endif
