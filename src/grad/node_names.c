/* node_names.c - the names PyTorch gives graph nodes, and a class per name.
 *
 * A result's repr shows its node (grad_fn=<SumBackward1>) and tools that walk
 * the graph read type(node).__name__.  PyTorch names a node after the ATen
 * overload that made it: sum() and sum(dim) are SumBackward0 and
 * SumBackward1, x ** y is PowBackward1 and 2 ** x PowBackward2.  Our op
 * covers all overloads of one name, so the name is chosen per call here,
 * from the arguments (and, for reshape, from whether the result is a view).
 *
 * Only overloads and aliases are renamed: an op PyTorch builds from others
 * (kron, tensordot, l1_loss, logdet ...) keeps its own name, since its node
 * here computes the whole op and a borrowed name would misdescribe it. */
#include <Python.h>

#include "grad/py_grad.h"

typedef struct {
  PyObject *const *args;
  Py_ssize_t nargs;
  PyObject *kwnames;
  PyObject *result;
} node_call;

/* The argument at position pos or keyword name; NULL when absent or None. */
static PyObject *arg(const node_call *c, int pos, const char *name)
{
  PyObject *a = NULL;
  if (pos < c->nargs)
    a = c->args[pos];
  for (Py_ssize_t k = 0; !a && c->kwnames && k < PyTuple_GET_SIZE(c->kwnames); k++)
    if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(c->kwnames, k), name) == 0)
      a = c->args[c->nargs + k];
  return a == Py_None ? NULL : a;
}

static bool is_tensor(PyObject *o) { return o && tl_py_is_tensor(o); }
static bool is_number(PyObject *o) { return o && !tl_py_is_tensor(o); }
static int rank(PyObject *o) { return is_tensor(o) ? tl_py_t(o)->ndim : -1; }
static Py_ssize_t length(PyObject *o) { return o && PySequence_Check(o) ? PySequence_Size(o) : 1; }
static bool str_is(PyObject *o, const char *s)
{
  return o && PyUnicode_Check(o) && PyUnicode_CompareWithASCIIString(o, s) == 0;
}
static long int_of(PyObject *o) { return o && PyLong_Check(o) ? PyLong_AsLong(o) : -1; }

/* ---- the overload PyTorch's derivatives table picks ------------------------------- */

static const char *reduction(const node_call *c, const char *all, const char *dims)
{
  return arg(c, 1, "dim") ? dims : all;
}

static const char *max_min(const node_call *c, const char *pairwise, const char *dim,
                           const char *all)
{
  PyObject *d = arg(c, 1, "dim");
  if (is_tensor(d) || arg(c, 99, "other"))
    return pairwise;
  return d ? dim : all;
}

/* x[i], x[1:], x[None], x[:, 0]: the basic index applied last names the node
 * (a full slice and ... make none); any advanced index makes it IndexBackward0. */
static const char *getitem(const node_call *c)
{
  PyObject *key = c->nargs > 1 ? c->args[1] : NULL;
  Py_ssize_t n = key && PyTuple_Check(key) ? PyTuple_GET_SIZE(key) : 1;
  const char *name = "AliasBackward0";
  for (Py_ssize_t k = 0; key && k < n; k++) {
    PyObject *item = PyTuple_Check(key) ? PyTuple_GET_ITEM(key, k) : key;
    if (item == Py_None)
      name = "UnsqueezeBackward0";
    else if (PyLong_Check(item) && !PyBool_Check(item))
      name = "SelectBackward0";
    else if (PySlice_Check(item)) {
      PySliceObject *s = (PySliceObject *)item;
      if (s->start != Py_None || s->stop != Py_None || s->step != Py_None)
        name = "SliceBackward0";
    } else if (item != Py_Ellipsis)
      return "IndexBackward0";
  }
  return name;
}

/* torch.matmul is mm, mv or dot for matrices and vectors; otherwise it folds
 * the batch into a product and views the result back. */
static const char *matmul(const node_call *c)
{
  int a = rank(arg(c, 0, "input")), b = rank(arg(c, 1, "other"));
  if (a == 2 && b == 2)
    return "MmBackward0";
  if (a == 2 && b == 1)
    return "MvBackward0";
  if (a == 1 && b == 1)
    return "DotBackward0";
  if (a == 1 && b == 2)
    return "SqueezeBackward4";
  return "UnsafeViewBackward0";
}

/* reshape and its kin are a view when the strides allow, else a copy */
static const char *reshaped(const node_call *c)
{
  PyObject *in = c->nargs ? c->args[0] : NULL;
  bool view = is_tensor(in) && is_tensor(c->result) &&
              tl_py_t(c->result)->storage == tl_py_t(in)->storage;
  return view ? "ViewBackward0" : "UnsafeViewBackward0";
}

/* the elementwise losses of src/nn/loss, by tl_loss_kind */
static const char *pointwise_loss(const node_call *c)
{
  static const char *const names[] = {
      "MseLossBackward0",  "L1LossBackward0",
      "SmoothL1LossBackward0", "HuberLossBackward0",
      "BinaryCrossEntropyBackward0", "BinaryCrossEntropyWithLogitsBackward0",
      "KlDivBackward0",
  };
  long kind = int_of(arg(c, 4, "kind"));
  return kind >= 0 && kind < (long)(sizeof names / sizeof *names) ? names[kind] : NULL;
}

/* Names spelled with the dimension count: ReflectionPad2DBackward0 ... */
static PyObject *with_dims(const char *before, Py_ssize_t dims, const char *after)
{
  return PyUnicode_FromFormat("%s%zdD%sBackward0", before, dims, after);
}

static PyObject *pad(const node_call *c)
{
  PyObject *mode = arg(c, 2, "mode");
  Py_ssize_t dims = length(arg(c, 1, "pad")) / 2;
  if (!mode || str_is(mode, "constant"))
    return PyUnicode_FromString("ConstantPadNdBackward0");
  if (str_is(mode, "reflect"))
    return with_dims("ReflectionPad", dims, "");
  if (str_is(mode, "replicate"))
    return with_dims("ReplicationPad", dims, "");
  return NULL;
}

static PyObject *upsample(const node_call *c)
{
  PyObject *mode = arg(c, 2, "mode");
  Py_ssize_t dims = length(arg(c, 1, "output_size"));
  PyObject *aa = arg(c, 5, "antialias");
  const char *smooth = aa && PyObject_IsTrue(aa) == 1 ? "Aa" : "";
  static const char *const linear[] = {NULL, "UpsampleLinear", "UpsampleBilinear",
                                       "UpsampleTrilinear"};
  if (str_is(mode, "nearest"))
    return with_dims("UpsampleNearest", dims, "");
  if (str_is(mode, "nearest-exact"))
    return with_dims("UpsampleNearestExact", dims, "");
  if (str_is(mode, "linear") && dims >= 1 && dims <= 3)
    return with_dims(linear[dims], dims, smooth);
  if (str_is(mode, "cubic"))
    return with_dims("UpsampleBicubic", dims, smooth);
  return NULL;
}

/* ---- the table ------------------------------------------------------------------------
 * A rule gives the name for the calls of one op (NULL: the op's own name);
 * a fixed name is an alias of PyTorch's op. */
typedef struct {
  const char *op;
  const char *fixed;
  const char *(*pick)(const node_call *c);
  PyObject *(*build)(const node_call *c);
} node_rule;

#define PICK(op, body) {op, NULL, body, NULL}
static const char *sum_name(const node_call *c) { return reduction(c, "SumBackward0", "SumBackward1"); }
static const char *mean_name(const node_call *c) { return reduction(c, "MeanBackward0", "MeanBackward1"); }
static const char *prod_name(const node_call *c) { return reduction(c, "ProdBackward0", "ProdBackward1"); }
static const char *median_name(const node_call *c) { return reduction(c, "MedianBackward0", "MedianBackward1"); }
static const char *nanmedian_name(const node_call *c)
{
  return reduction(c, "NanmedianBackward0", "NanmedianBackward1");
}
static const char *max_name(const node_call *c)
{
  return max_min(c, "MaximumBackward0", "MaxBackward0", "MaxBackward1");
}
static const char *min_name(const node_call *c)
{
  return max_min(c, "MinimumBackward0", "MinBackward0", "MinBackward1");
}
static const char *pow_name(const node_call *c)
{
  if (!is_tensor(arg(c, 0, "input")))
    return "PowBackward2";
  return is_tensor(arg(c, 1, "exponent")) ? "PowBackward1" : "PowBackward0";
}
static const char *clamp_name(const node_call *c)
{
  return is_tensor(arg(c, 1, "min")) || is_tensor(arg(c, 2, "max")) ? "ClampBackward0"
                                                                     : "ClampBackward1";
}
/* split(t, [1, 2]) is split_with_sizes */
static const char *split_name(const node_call *c)
{
  PyObject *sizes = arg(c, 1, "split_size");
  if (!sizes)
    sizes = arg(c, 1, "split_size_or_sections");
  return sizes && (PyList_Check(sizes) || PyTuple_Check(sizes)) ? "SplitWithSizesBackward0"
                                                                 : "SplitBackward0";
}
static const char *masked_fill_name(const node_call *c)
{
  return is_tensor(arg(c, 2, "value")) ? "MaskedFillBackward1" : "MaskedFillBackward0";
}
static const char *fmod_name(const node_call *c)
{
  return is_tensor(arg(c, 1, "other")) ? "FmodBackward1" : "FmodBackward0";
}
static const char *remainder_name(const node_call *c)
{
  return is_tensor(arg(c, 1, "other")) ? "RemainderBackward1" : "RemainderBackward0";
}
/* 2 / x is reciprocal(x) * 2 in PyTorch */
static const char *div_name(const node_call *c)
{
  if (!is_tensor(arg(c, 0, "input")))
    return "MulBackward0";
  return arg(c, 99, "rounding_mode") ? "DivBackward2" : "DivBackward0";
}
/* 1 - x is rsub(x, 1) */
static const char *sub_name(const node_call *c)
{
  return is_tensor(arg(c, 0, "input")) ? "SubBackward0" : "RsubBackward1";
}
static const char *rsub_name(const node_call *c)
{
  return is_number(arg(c, 1, "other")) ? "RsubBackward1" : "RsubBackward0";
}
static const char *round_name(const node_call *c)
{
  return arg(c, 99, "decimals") ? "RoundBackward1" : "RoundBackward0";
}
static const char *scatter_name(const node_call *c)
{
  return arg(c, 99, "value") || is_number(arg(c, 3, "src")) ? "ScatterBackward1"
                                                            : "ScatterBackward0";
}
static const char *squeeze_name(const node_call *c)
{
  PyObject *dim = arg(c, 1, "dim");
  if (!dim)
    return "SqueezeBackward0";
  return PyLong_Check(dim) ? "SqueezeBackward1" : "SqueezeBackward2";
}
static const char *fill_name(const node_call *c)
{
  return is_tensor(arg(c, 1, "value")) ? "FillBackward3" : "FillBackward2";
}
/* The in-place activations (F.elu_(x), F.relu(x, inplace=True): py_record.c's
 * _inplace_op) write their input and return it; PyTorch names their
 * overloads elu_, leaky_relu_, threshold_ apart from the out-of-place ones. */
static bool writes_input(const node_call *c) { return c->nargs && c->result == c->args[0]; }
static const char *elu_name(const node_call *c)
{
  return writes_input(c) ? "EluBackward1" : "EluBackward0";
}
static const char *leaky_relu_name(const node_call *c)
{
  return writes_input(c) ? "LeakyReluBackward1" : "LeakyReluBackward0";
}
static const char *threshold_name(const node_call *c)
{
  return writes_input(c) ? "ThresholdBackward1" : "ThresholdBackward0";
}
/* unique(dim=None) is PyTorch's _unique2, unique(dim=d) its unique_dim */
static const char *unique_name(const node_call *c)
{
  return arg(c, 4, "dim") ? "UniqueDimBackward0" : "Unique2Backward0";
}
/* normal(Tensor, float), normal(float, Tensor), normal(Tensor, Tensor) */
static const char *normal_name(const node_call *c)
{
  if (!is_tensor(arg(c, 1, "std")))
    return "NormalBackward1";
  return is_tensor(arg(c, 0, "mean")) ? "NormalBackward3" : "NormalBackward2";
}
/* bernoulli(input, p) with a float p has no derivative: PyTorch's node then
 * is its NotImplemented (formulas_random.c raises its error) */
static const char *bernoulli_name(const node_call *c)
{
  return arg(c, 1, "p") ? "NotImplemented" : "BernoulliBackward0";
}
static const char *bernoulli_inplace_name(const node_call *c)
{
  return is_tensor(arg(c, 1, "p")) ? "BernoulliBackward1" : "BernoulliBackward2";
}
/* random_(from, to), random_(to), random_(): one positional is `to` */
static const char *random_name(const node_call *c)
{
  if (c->nargs > 2 || arg(c, 99, "from"))
    return "RandomBackward0";
  return c->nargs > 1 || arg(c, 99, "to") ? "RandomBackward1" : "RandomBackward2";
}
static const char *nll_name(const node_call *c)
{
  return rank(arg(c, 0, "input")) == 4 ? "NllLoss2DBackward0" : "NllLossBackward0";
}
static const char *grid_name(const node_call *c)
{
  return rank(arg(c, 0, "input")) == 5 ? "GridSampler3DBackward0" : "GridSampler2DBackward0";
}
static PyObject *pool_name(const node_call *c, const char *kind, const char *after)
{
  return with_dims(kind, length(arg(c, 1, "kernel_size")), after);
}
static PyObject *avg_pool_name(const node_call *c) { return pool_name(c, "AvgPool", ""); }
static PyObject *max_pool_name(const node_call *c) { return pool_name(c, "MaxPool", "WithIndices"); }
/* Pooling to size 1 is PyTorch's mean over the spatial dims (its node). */
static PyObject *adaptive_avg_name(const node_call *c)
{
  PyObject *size = arg(c, 1, "output_size");
  Py_ssize_t n = length(size);
  bool ones = size && PySequence_Check(size);
  for (Py_ssize_t d = 0; ones && d < n; d++) {
    PyObject *v = PySequence_GetItem(size, d);
    ones = v && PyLong_Check(v) && PyLong_AsLong(v) == 1;
    Py_XDECREF(v);
  }
  PyErr_Clear();
  if (ones || int_of(size) == 1)
    return PyUnicode_FromString("MeanBackward1");
  return with_dims("AdaptiveAvgPool", n, "");
}
static PyObject *adaptive_max_name(const node_call *c)
{
  return with_dims("AdaptiveMaxPool", length(arg(c, 1, "output_size")), "");
}

static const node_rule rules[] = {
    PICK("sum", sum_name),
    PICK("mean", mean_name),
    PICK("prod", prod_name),
    PICK("median", median_name),
    PICK("nanmedian", nanmedian_name),
    PICK("max", max_name),
    PICK("min", min_name),
    PICK("pow", pow_name),
    PICK("clamp", clamp_name),
    PICK("clip", clamp_name),
    PICK("masked_fill", masked_fill_name),
    PICK("split", split_name),
    PICK("fmod", fmod_name),
    PICK("remainder", remainder_name),
    PICK("div", div_name),
    PICK("divide", div_name),
    PICK("true_divide", div_name),
    PICK("sub", sub_name),
    PICK("subtract", sub_name),
    PICK("rsub", rsub_name),
    PICK("round", round_name),
    PICK("scatter", scatter_name),
    PICK("__getitem__", getitem),
    PICK("squeeze", squeeze_name),
    PICK("fill_", fill_name),
    PICK("matmul", matmul),
    PICK("reshape", reshaped),
    PICK("reshape_as", reshaped),
    PICK("flatten", reshaped),
    PICK("ravel", reshaped),
    PICK("unflatten", reshaped),
    PICK("elu", elu_name),
    PICK("leaky_relu", leaky_relu_name),
    PICK("threshold", threshold_name),
    PICK("unique", unique_name),
    PICK("normal", normal_name),
    PICK("bernoulli", bernoulli_name),
    PICK("bernoulli_", bernoulli_inplace_name),
    PICK("random_", random_name),
    PICK("nll_loss_nd", nll_name),
    PICK("grid_sampler", grid_name),
    PICK("_pointwise_loss", pointwise_loss),
    {"_pad", NULL, NULL, pad},
    {"_upsample", NULL, NULL, upsample},
    {"_avg_pool", NULL, NULL, avg_pool_name},
    {"_max_pool", NULL, NULL, max_pool_name},
    {"_adaptive_avg_pool", NULL, NULL, adaptive_avg_name},
    {"_adaptive_max_pool", NULL, NULL, adaptive_max_name},
    /* aliases: the same op under PyTorch's name */
    {"__setitem__", "IndexPutBackward0", NULL, NULL},
    /* no derivative in PyTorch's table at all: its node is NotImplemented
     * (formulas_missing.c, formulas_random.c raise its error) */
    {"_binomial", "NotImplemented", NULL, NULL},
    {"heaviside", "NotImplemented", NULL, NULL},
    {"bincount", "NotImplemented", NULL, NULL},
    {"_linalg_ldl_factor_ex", "NotImplemented", NULL, NULL},
    {"_linalg_ldl_solve", "NotImplemented", NULL, NULL},
    {"histogram", "NotImplemented", NULL, NULL},
    {"histogramdd", "NotImplemented", NULL, NULL},
    {"square", "PowBackward0", NULL, NULL},
    {"float_power", "PowBackward0", NULL, NULL},
    {"to", "ToCopyBackward0", NULL, NULL},
    {"type", "ToCopyBackward0", NULL, NULL},
    {"double", "ToCopyBackward0", NULL, NULL},
    {"half", "ToCopyBackward0", NULL, NULL},
    {"bfloat16", "ToCopyBackward0", NULL, NULL},
    {"copy_", "torch::autograd::CopyBackwards", NULL, NULL},
    {"narrow", "SliceBackward0", NULL, NULL},
    {"expand_as", "ExpandBackward0", NULL, NULL},
    {"broadcast_to", "ExpandBackward0", NULL, NULL},
    {"meshgrid", "ExpandBackward0", NULL, NULL},
    {"msort", "SortBackward0", NULL, NULL},
    {"chunk", "SplitBackward0", NULL, NULL},
    {"movedim", "PermuteBackward0", NULL, NULL},
    {"moveaxis", "PermuteBackward0", NULL, NULL},
    {"swapaxes", "TransposeBackward0", NULL, NULL},
    {"swapdims", "TransposeBackward0", NULL, NULL},
    {"hstack", "CatBackward0", NULL, NULL},
    {"vstack", "CatBackward0", NULL, NULL},
    {"_linalg_inv", "LinalgInvExBackward0", NULL, NULL},
    {"_linalg_solve", "LinalgSolveExBackward0", NULL, NULL},
    {"_linalg_cholesky", "LinalgCholeskyExBackward0", NULL, NULL},
    {"_linalg_cross", "LinalgCrossBackward0", NULL, NULL},
    {"_linalg_vector_norm", "LinalgVectorNormBackward0", NULL, NULL},
    {"norm", "LinalgVectorNormBackward0", NULL, NULL},
};

/* PyTorch's spelling of an op's node: the words of its name capitalised,
 * leading underscores dropped, a letter after a digit in capitals too
 * (log1p: Log1PBackward0, im2col: Im2ColBackward0). */
PyObject *tl_py_node_name(const char *op_name)
{
  char buf[128];
  size_t n = 0;
  bool upper = true;
  for (const char *p = op_name; *p && n < sizeof buf - 16; p++) {
    if (*p == '_') {
      upper = true;
      continue;
    }
    buf[n++] = upper && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
    upper = *p >= '0' && *p <= '9';
  }
  buf[n] = '\0';
  return PyUnicode_FromFormat("%sBackward0", buf);
}

/* Per formula: its rule (or none) and, for fixed names, the name made once. */
static const node_rule *rule_of[TL_GRAD_COUNT];
static PyObject *fixed_names[TL_GRAD_COUNT];
static bool indexed;

static void index_rules(void)
{
  for (int f = 0; f < TL_GRAD_COUNT; f++)
    for (size_t r = 0; r < sizeof rules / sizeof *rules; r++)
      if (!strcmp(tl_grad_formula_name(f), rules[r].op)) {
        rule_of[f] = &rules[r];
        break;
      }
  indexed = true;
}

/* The string object of a name a pick returns (a new reference), made once.
 * Picks return literals, so the literal's address finds it: no string is
 * built or hashed on the recording path (a few dozen names, a short scan). */
static PyObject *name_object(const char *name)
{
  static struct {
    const char *literal;
    PyObject *object;
  } made[64];
  static int n;
  for (int i = 0; i < n; i++)
    if (made[i].literal == name)
      return Py_NewRef(made[i].object);
  PyObject *s = PyUnicode_InternFromString(name);
  if (s && n < (int)(sizeof made / sizeof *made)) {
    made[n].literal = name;
    made[n++].object = Py_NewRef(s); /* kept for the process */
  }
  return s;
}

PyObject *tl_grad_node_name(int formula, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames, PyObject *result)
{
  if (!indexed)
    index_rules();
  const node_rule *rule = rule_of[formula];
  if (!rule || rule->fixed) {
    if (!fixed_names[formula]) {
      const char *op = tl_grad_formula_name(formula);
      fixed_names[formula] = rule ? PyUnicode_FromString(rule->fixed) : tl_py_node_name(op);
    }
    return Py_XNewRef(fixed_names[formula]);
  }
  node_call c = {args, nargs, kwnames, result};
  if (rule->pick) {
    const char *name = rule->pick(&c);
    if (name)
      return name_object(name);
  } else {
    PyObject *name = rule->build(&c);
    if (name || PyErr_Occurred())
      return name;
  }
  return tl_py_node_name(tl_grad_formula_name(formula));
}

/* ---- one class per name ---------------------------------------------------------------
 * type(y.grad_fn) is MulBackward0, a subclass of torchlike._C.Node that adds
 * nothing: made on first use by type(), kept for the process. */
PyTypeObject *tl_py_node_class(PyObject *name)
{
  static PyObject *classes;
  if (!classes && !(classes = PyDict_New()))
    return NULL;
  PyObject *cls = PyDict_GetItemWithError(classes, name);
  if (cls || PyErr_Occurred())
    return (PyTypeObject *)cls;
  /* torch::autograd::AccumulateGrad is class AccumulateGrad */
  const char *full = PyUnicode_AsUTF8(name), *colons = full ? strrchr(full, ':') : NULL;
  PyObject *ns = full ? Py_BuildValue("{s:(),s:s}", "__slots__", "__module__", "builtins") : NULL;
  if (ns)
    cls = PyObject_CallFunction((PyObject *)&PyType_Type, "s(O)O", colons ? colons + 1 : full,
                                tl_py_node_type, ns);
  Py_XDECREF(ns);
  if (cls && PyDict_SetItem(classes, name, cls) < 0)
    Py_CLEAR(cls);
  Py_XDECREF(cls); /* the dict holds it */
  return (PyTypeObject *)cls;
}
