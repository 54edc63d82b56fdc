/* tl_embedding.h - embedding lookups and their backward.
 *
 *   embedding(weight (V, E), indices (*))  ->  (*, E), row i = weight[indices[i]]
 *   embedding_dense_backward(g (*, E), indices (*), V, padding_idx, freq)
 *       -> dW (V, E), dW[v] = s_v * sum over i with indices[i] == v of g[i]
 *   s_v = 0 for the padding row, 1 / count(v) with scale_grad_by_freq, else 1.
 * The backward scatter-adds rows: the vocabulary is split across the thread
 * pool and each thread adds the rows of its own part, so no two threads
 * write one row and the sums come out the same for any thread count.
 *
 *   embedding_bag: bags of rows reduced by sum, mean or max (tl_embedding_bag
 *   below), with per-sample weights (sum only) and a padding row that bags
 *   skip. */
#ifndef TL_NN_EMBEDDING_H
#define TL_NN_EMBEDDING_H

#include "ndcore/dispatch/tl_dispatch.h"

typedef enum { TL_BAG_SUM, TL_BAG_MEAN, TL_BAG_MAX } tl_bag_mode;

/* A device's kernels.  Indices (and offsets) come contiguous int64 and in
 * range (the entry points check); weight contiguous; outputs allocated. */
typedef struct {
  tl_status (*forward)(const tl_tensor *weight, const tl_tensor *idx, tl_tensor *out);
  tl_status (*backward)(const tl_tensor *g, const tl_tensor *idx, int64_t padding_idx, bool freq,
                        tl_tensor *dw);
  /* bags: idx (n,); bounds (B + 1,) bag b holds idx[bounds[b] .. bounds[b + 1]);
   * bag_of (n,) the bag of each index; out (B, E); bag_size (B,) the rows
   * each bag counted (padding skipped); argmax (B, E) for max: the weight
   * row chosen, -1 for an empty bag */
  tl_status (*bag_forward)(const tl_tensor *weight, const tl_tensor *idx, const tl_tensor *bounds,
                           const tl_tensor *psw, tl_bag_mode mode, int64_t padding_idx,
                           tl_tensor *out, tl_tensor *bag_size, tl_tensor *argmax);
  tl_status (*bag_backward)(const tl_tensor *g, const tl_tensor *idx, const tl_tensor *bag_of,
                            const tl_tensor *bag_size, const tl_tensor *argmax,
                            const tl_tensor *psw, tl_bag_mode mode, int64_t padding_idx,
                            tl_tensor *dw);
} tl_nn_embedding_kernels;

tl_status tl_nn_embedding(const tl_tensor *weight, const tl_tensor *indices, tl_tensor *out);
tl_status tl_nn_embedding_backward(const tl_tensor *g, const tl_tensor *indices, int64_t num_weights,
                                   int64_t padding_idx, bool freq, tl_tensor *dw);

/* embedding_bag: indices 1-d with offsets (bag starts; include_last_offset:
 * the last entry ends the last bag), or 2-d (B, n) with offsets NULL.
 * Outputs: out (B, E), bag_of (n,) int64, bag_size (B,) int64, argmax
 * (B, E) int64 (empty unless max). */
tl_status tl_nn_embedding_bag(const tl_tensor *weight, const tl_tensor *indices,
                              const tl_tensor *offsets, tl_bag_mode mode, const tl_tensor *psw,
                              bool include_last_offset, int64_t padding_idx, tl_tensor *out,
                              tl_tensor *bag_of, tl_tensor *bag_size, tl_tensor *argmax);
/* dW (V, E) from g (B, E); psw's gradient is formed by the formula. */
tl_status tl_nn_embedding_bag_backward(const tl_tensor *g, const tl_tensor *indices,
                                       const tl_tensor *bag_of, const tl_tensor *bag_size,
                                       const tl_tensor *argmax, const tl_tensor *psw,
                                       int64_t num_weights, tl_bag_mode mode, int64_t padding_idx,
                                       tl_tensor *dw);

/* IndexError "index out of range in self" unless every idx (contiguous
 * int64) is in [0, V); a no-op for memory host code cannot read (a
 * device's kernels check there). */
tl_status tl_nn_embedding_check_range(const tl_tensor *idx, int64_t V);

/* embedding_bag's RuntimeError, in PyTorch's words, unless every idx
 * (contiguous int64) is in [0, V): the path of mode max or a padding_idx
 * (max_path) names the value, the sum/mean path its position too.  A
 * no-op for memory host code cannot read (a device's kernels check there,
 * then call this on a host copy for the words). */
tl_status tl_nn_embedding_bag_check_range(const tl_tensor *idx, int64_t V, bool max_path);

/* The CPU's kernels (embedding_cpu.c). */
extern const tl_nn_embedding_kernels tl_cpu_embedding_kernels;

#endif
