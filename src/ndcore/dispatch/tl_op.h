/* tl_op.h - the op registry and the one call path every op takes.
 *
 * The registry is ops.def.  An elementwise call goes:
 *   check devices -> promote dtypes (op's rule, weak scalars) -> broadcast
 *   shapes -> allocate or check the output -> pick the device loop -> iterate.
 * The Python layer (py_ops.c) only parses arguments into this form.        */
#ifndef TL_OP_H
#define TL_OP_H

#include "ndcore/tensor/tl_dtype.h"
#include "ndcore/dispatch/tl_iter.h"

typedef enum {
  TL_OPKIND_UNARY,
  TL_OPKIND_BINARY,
  TL_OPKIND_WHERE,
  TL_OPKIND_REDUCE,      /* dim=None|int|tuple, keepdim, dtype */
  TL_OPKIND_REDUCE_PAIR, /* values and indices along one dim (max, min) */
  TL_OPKIND_SCAN,        /* along one dim (cumsum) */
  TL_OPKIND_MATMUL,      /* matrix products: tl_linalg.h, parsed in py_linalg.c */
  TL_OPKIND_SORT,        /* sorting and searching; own signatures (py_sort.c) */
  TL_OPKIND_CLAMP,       /* clamp(x, min, max): elementwise, either bound optional */
  TL_OPKIND_INDEX,       /* gather, scatter, index_ and masked_ ops, take, put (py_index.c) */
  TL_OPKIND_NN,          /* neural-network kernels of src/nn: a _C function, no Tensor method */
  /* Kinds whose Python spelling is written elsewhere: no op function is
   * generated for them (py_ops.c); they exist for the kernel table. */
  TL_OPKIND_SUBSCRIPT,   /* t[idx] (py_index.c) */
  TL_OPKIND_LINALG,      /* torchlike.linalg decompositions (py_linalg.c) */
  TL_OPKIND_RANDOM,      /* in-place draws, randperm, poisson, multinomial (py_random.c) */
  TL_OPKIND_FILL,        /* fills of fresh tensors: full, arange, linspace, eye (py_create.c) */
  TL_OPKIND_COPY,        /* copy_ and casts (py_tensor.c) */
} tl_opkind;

/* Is an op function generated for ops of this kind? */
static inline bool tl_opkind_has_function(tl_opkind kind) { return kind < TL_OPKIND_SUBSCRIPT; }
/* Kinds run by the elementwise path (tl_op_map): a loop per dtype. */
static inline bool tl_opkind_is_elementwise(tl_opkind kind)
{
  return kind == TL_OPKIND_UNARY || kind == TL_OPKIND_BINARY || kind == TL_OPKIND_WHERE ||
         kind == TL_OPKIND_CLAMP;
}

/* Result dtype rules; op.c explains each. */
typedef enum {
  TL_RULE_SAME,
  TL_RULE_ARITH,
  TL_RULE_ARITH_NOBOOL,
  TL_RULE_FLOAT,
  TL_RULE_FLOAT_REAL,
  TL_RULE_FLOAT_ONLY,
  TL_RULE_DOUBLE,
  TL_RULE_REAL,
  TL_RULE_INT,
  TL_RULE_ABS,
  TL_RULE_ABS_FLOAT,
  TL_RULE_COMPARE,
  TL_RULE_COMPARE_ORDER,
  TL_RULE_LOGICAL,
  TL_RULE_PREDICATE,
  TL_RULE_PREDICATE_REAL,
  TL_RULE_EXPONENT,
  TL_RULE_SUM,
  TL_RULE_MEAN,
  TL_RULE_INDEX,
} tl_dtype_rule;

typedef enum {
#define TL_OP(E, name, kind, rule) TL_OP_##E,
#include "ndcore/dispatch/ops.def"
#undef TL_OP
  TL_OP_COUNT
} tl_op;

typedef struct {
  const char *name;
  tl_opkind kind;
  tl_dtype_rule rule;
} tl_op_info;

extern const tl_op_info tl_op_infos[TL_OP_COUNT];

/* Extra arguments of an op (alpha, clamp bounds, decimals, correction ...). */
typedef struct {
  tl_scalar s[3];
  int64_t i;
} tl_op_params;

/* maximum/minimum's i: one rule at every place (the first operand of a tie of
 * 0.0 and -0.0, an input's own NaN) instead of PyTorch's, which follows an
 * element's place in its run; torchlike.numpy builds NumPy's answers on it. */
#define TL_OP_EXTREMA_PLAIN 1
/* Device paths only: PyTorch's rule, where the CPU would have cast an operand
 * (or the output) through its iterator's buffers, whose pieces cut its runs;
 * the device cast it before (tl_extrema_rule.h). */
#define TL_OP_EXTREMA_BUFFERED 2

/* An input: a tensor, or a Python scalar held in a 0-d tensor that is weak in
 * promotion (NEP 50). */
typedef struct {
  const tl_tensor *t;
  bool weak;
} tl_arg;

/* Elementwise kernels are inner loops, one per (op, device, compute dtype), in
 * the kernel table (tl_dispatch.h).  Loop operands: output first, then the
 * inputs in order; `data` is the op's tl_op_params.  The CPU loops are
 * registered by the kernel files: */
void tl_cpu_unary_register(void);
void tl_cpu_binary_register(void);

/* RuntimeError naming two devices unless all n tensors share one. */
tl_status tl_check_same_device(int n, const tl_tensor *const *ts);

/* What every device's copy kernel shares: src broadcast to dst (NumPy's
 * leading size-1 dims of src dropped, src first copied aside when it partly
 * overlaps dst) as one plan, operand 1 cast into operand 0 by `run`. */
tl_status tl_copy_through(tl_tensor *dst, const tl_tensor *src, tl_status (*run)(const tl_iter *it));

/* Result and loop dtypes of an elementwise op on these inputs. */
tl_status tl_op_result_dtype(tl_op op, int nin, const tl_arg *in, tl_dtype *result,
                             tl_dtype *compute);

/* Elementwise call path.  `out` either has no storage (allocated here with the
 * broadcast shape) or is an existing tensor written in place (out=, add_). */
tl_status tl_op_map(tl_op op, int nin, const tl_arg *in, tl_tensor *out, const tl_op_params *p);
/* The same, a new `out` laid out as its operands are (tl_layout_order), as
 * PyTorch's and NumPy's results are: the call path of results handed to
 * users.  tl_op_map's row-major results are for code that reads them as such. */
tl_status tl_op_map_like_inputs(tl_op op, int nin, const tl_arg *in, tl_tensor *out,
                                const tl_op_params *p);

/* Reductions: dims is a bitmask of reduced dims (all when 0 and all_dims). */
typedef struct {
  uint64_t dims;
  bool keepdim;
  int dtype; /* -1: the rule's default */
  tl_op_params p;
} tl_reduce_args;
tl_status tl_op_reduce(tl_op op, const tl_tensor *in, const tl_reduce_args *a, tl_tensor *out,
                       tl_tensor *indices);
tl_status tl_op_scan(tl_op op, const tl_tensor *in, int dim, int dtype, tl_tensor *out);

#endif
