/* sort_simd_net.h - bitonic networks sorting the n <= R * TL_SL keys at a
 * in R vectors held in registers (R = 1, 2, 4, 8, 16); part of the
 * sort_simd_t.h template.  Written by scripts/gen_sort_networks.py: edit
 * that, not this.
 *
 * Each vector is sorted alone (sort_vec); then runs of w vectors are merged
 * pairwise, w = 1, 2, 4 ...: the flip compares element p of the pair with
 * element 2w*L-1-p (TL_FLIP: one vector against the reverse of its
 * partner), after which each half holds the right elements in bitonic
 * order, and half-cleaners across vectors (TL_CX) then inside each vector
 * (clean) sort it.  Lanes past n load as the largest key and are not
 * stored. */

TL_SIMD_FN static void TL_SN(network1)(TL_ST *a, int64_t n)
{
  const __m512i ones = _mm512_set1_epi32(-1);
  __m512i x, y;
  (void)x;
  (void)y;
  __m512i r0 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 0), a + 0 * TL_SL));
  TL_VSTORE(a + 0 * TL_SL, TL_SN(lanes)(n, 0), r0);
}

TL_SIMD_FN static void TL_SN(network2)(TL_ST *a, int64_t n)
{
  const __m512i ones = _mm512_set1_epi32(-1);
  __m512i x, y;
  (void)x;
  (void)y;
  __m512i r0 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 0), a + 0 * TL_SL));
  __m512i r1 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 1), a + 1 * TL_SL));
  TL_FLIP(r0, r1);
  r0 = TL_SN(clean)(r0);
  r1 = TL_SN(clean)(r1);
  TL_VSTORE(a + 0 * TL_SL, TL_SN(lanes)(n, 0), r0);
  TL_VSTORE(a + 1 * TL_SL, TL_SN(lanes)(n, 1), r1);
}

TL_SIMD_FN static void TL_SN(network4)(TL_ST *a, int64_t n)
{
  const __m512i ones = _mm512_set1_epi32(-1);
  __m512i x, y;
  (void)x;
  (void)y;
  __m512i r0 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 0), a + 0 * TL_SL));
  __m512i r1 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 1), a + 1 * TL_SL));
  __m512i r2 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 2), a + 2 * TL_SL));
  __m512i r3 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 3), a + 3 * TL_SL));
  TL_FLIP(r0, r1);
  r0 = TL_SN(clean)(r0);
  r1 = TL_SN(clean)(r1);
  TL_FLIP(r2, r3);
  r2 = TL_SN(clean)(r2);
  r3 = TL_SN(clean)(r3);
  TL_FLIP(r0, r3);
  TL_FLIP(r1, r2);
  TL_CX(r0, r1);
  TL_CX(r2, r3);
  r0 = TL_SN(clean)(r0);
  r1 = TL_SN(clean)(r1);
  r2 = TL_SN(clean)(r2);
  r3 = TL_SN(clean)(r3);
  TL_VSTORE(a + 0 * TL_SL, TL_SN(lanes)(n, 0), r0);
  TL_VSTORE(a + 1 * TL_SL, TL_SN(lanes)(n, 1), r1);
  TL_VSTORE(a + 2 * TL_SL, TL_SN(lanes)(n, 2), r2);
  TL_VSTORE(a + 3 * TL_SL, TL_SN(lanes)(n, 3), r3);
}

TL_SIMD_FN static void TL_SN(network8)(TL_ST *a, int64_t n)
{
  const __m512i ones = _mm512_set1_epi32(-1);
  __m512i x, y;
  (void)x;
  (void)y;
  __m512i r0 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 0), a + 0 * TL_SL));
  __m512i r1 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 1), a + 1 * TL_SL));
  __m512i r2 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 2), a + 2 * TL_SL));
  __m512i r3 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 3), a + 3 * TL_SL));
  __m512i r4 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 4), a + 4 * TL_SL));
  __m512i r5 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 5), a + 5 * TL_SL));
  __m512i r6 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 6), a + 6 * TL_SL));
  __m512i r7 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 7), a + 7 * TL_SL));
  TL_FLIP(r0, r1);
  r0 = TL_SN(clean)(r0);
  r1 = TL_SN(clean)(r1);
  TL_FLIP(r2, r3);
  r2 = TL_SN(clean)(r2);
  r3 = TL_SN(clean)(r3);
  TL_FLIP(r4, r5);
  r4 = TL_SN(clean)(r4);
  r5 = TL_SN(clean)(r5);
  TL_FLIP(r6, r7);
  r6 = TL_SN(clean)(r6);
  r7 = TL_SN(clean)(r7);
  TL_FLIP(r0, r3);
  TL_FLIP(r1, r2);
  TL_CX(r0, r1);
  TL_CX(r2, r3);
  r0 = TL_SN(clean)(r0);
  r1 = TL_SN(clean)(r1);
  r2 = TL_SN(clean)(r2);
  r3 = TL_SN(clean)(r3);
  TL_FLIP(r4, r7);
  TL_FLIP(r5, r6);
  TL_CX(r4, r5);
  TL_CX(r6, r7);
  r4 = TL_SN(clean)(r4);
  r5 = TL_SN(clean)(r5);
  r6 = TL_SN(clean)(r6);
  r7 = TL_SN(clean)(r7);
  TL_FLIP(r0, r7);
  TL_FLIP(r1, r6);
  TL_FLIP(r2, r5);
  TL_FLIP(r3, r4);
  TL_CX(r0, r2);
  TL_CX(r1, r3);
  TL_CX(r4, r6);
  TL_CX(r5, r7);
  TL_CX(r0, r1);
  TL_CX(r2, r3);
  TL_CX(r4, r5);
  TL_CX(r6, r7);
  r0 = TL_SN(clean)(r0);
  r1 = TL_SN(clean)(r1);
  r2 = TL_SN(clean)(r2);
  r3 = TL_SN(clean)(r3);
  r4 = TL_SN(clean)(r4);
  r5 = TL_SN(clean)(r5);
  r6 = TL_SN(clean)(r6);
  r7 = TL_SN(clean)(r7);
  TL_VSTORE(a + 0 * TL_SL, TL_SN(lanes)(n, 0), r0);
  TL_VSTORE(a + 1 * TL_SL, TL_SN(lanes)(n, 1), r1);
  TL_VSTORE(a + 2 * TL_SL, TL_SN(lanes)(n, 2), r2);
  TL_VSTORE(a + 3 * TL_SL, TL_SN(lanes)(n, 3), r3);
  TL_VSTORE(a + 4 * TL_SL, TL_SN(lanes)(n, 4), r4);
  TL_VSTORE(a + 5 * TL_SL, TL_SN(lanes)(n, 5), r5);
  TL_VSTORE(a + 6 * TL_SL, TL_SN(lanes)(n, 6), r6);
  TL_VSTORE(a + 7 * TL_SL, TL_SN(lanes)(n, 7), r7);
}

TL_SIMD_FN static void TL_SN(network16)(TL_ST *a, int64_t n)
{
  const __m512i ones = _mm512_set1_epi32(-1);
  __m512i x, y;
  (void)x;
  (void)y;
  __m512i r0 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 0), a + 0 * TL_SL));
  __m512i r1 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 1), a + 1 * TL_SL));
  __m512i r2 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 2), a + 2 * TL_SL));
  __m512i r3 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 3), a + 3 * TL_SL));
  __m512i r4 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 4), a + 4 * TL_SL));
  __m512i r5 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 5), a + 5 * TL_SL));
  __m512i r6 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 6), a + 6 * TL_SL));
  __m512i r7 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 7), a + 7 * TL_SL));
  __m512i r8 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 8), a + 8 * TL_SL));
  __m512i r9 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 9), a + 9 * TL_SL));
  __m512i r10 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 10), a + 10 * TL_SL));
  __m512i r11 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 11), a + 11 * TL_SL));
  __m512i r12 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 12), a + 12 * TL_SL));
  __m512i r13 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 13), a + 13 * TL_SL));
  __m512i r14 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 14), a + 14 * TL_SL));
  __m512i r15 = TL_SN(sort_vec)(TL_VSORTLOAD(ones, TL_SN(lanes)(n, 15), a + 15 * TL_SL));
  TL_FLIP(r0, r1);
  r0 = TL_SN(clean)(r0);
  r1 = TL_SN(clean)(r1);
  TL_FLIP(r2, r3);
  r2 = TL_SN(clean)(r2);
  r3 = TL_SN(clean)(r3);
  TL_FLIP(r4, r5);
  r4 = TL_SN(clean)(r4);
  r5 = TL_SN(clean)(r5);
  TL_FLIP(r6, r7);
  r6 = TL_SN(clean)(r6);
  r7 = TL_SN(clean)(r7);
  TL_FLIP(r8, r9);
  r8 = TL_SN(clean)(r8);
  r9 = TL_SN(clean)(r9);
  TL_FLIP(r10, r11);
  r10 = TL_SN(clean)(r10);
  r11 = TL_SN(clean)(r11);
  TL_FLIP(r12, r13);
  r12 = TL_SN(clean)(r12);
  r13 = TL_SN(clean)(r13);
  TL_FLIP(r14, r15);
  r14 = TL_SN(clean)(r14);
  r15 = TL_SN(clean)(r15);
  TL_FLIP(r0, r3);
  TL_FLIP(r1, r2);
  TL_CX(r0, r1);
  TL_CX(r2, r3);
  r0 = TL_SN(clean)(r0);
  r1 = TL_SN(clean)(r1);
  r2 = TL_SN(clean)(r2);
  r3 = TL_SN(clean)(r3);
  TL_FLIP(r4, r7);
  TL_FLIP(r5, r6);
  TL_CX(r4, r5);
  TL_CX(r6, r7);
  r4 = TL_SN(clean)(r4);
  r5 = TL_SN(clean)(r5);
  r6 = TL_SN(clean)(r6);
  r7 = TL_SN(clean)(r7);
  TL_FLIP(r8, r11);
  TL_FLIP(r9, r10);
  TL_CX(r8, r9);
  TL_CX(r10, r11);
  r8 = TL_SN(clean)(r8);
  r9 = TL_SN(clean)(r9);
  r10 = TL_SN(clean)(r10);
  r11 = TL_SN(clean)(r11);
  TL_FLIP(r12, r15);
  TL_FLIP(r13, r14);
  TL_CX(r12, r13);
  TL_CX(r14, r15);
  r12 = TL_SN(clean)(r12);
  r13 = TL_SN(clean)(r13);
  r14 = TL_SN(clean)(r14);
  r15 = TL_SN(clean)(r15);
  TL_FLIP(r0, r7);
  TL_FLIP(r1, r6);
  TL_FLIP(r2, r5);
  TL_FLIP(r3, r4);
  TL_CX(r0, r2);
  TL_CX(r1, r3);
  TL_CX(r4, r6);
  TL_CX(r5, r7);
  TL_CX(r0, r1);
  TL_CX(r2, r3);
  TL_CX(r4, r5);
  TL_CX(r6, r7);
  r0 = TL_SN(clean)(r0);
  r1 = TL_SN(clean)(r1);
  r2 = TL_SN(clean)(r2);
  r3 = TL_SN(clean)(r3);
  r4 = TL_SN(clean)(r4);
  r5 = TL_SN(clean)(r5);
  r6 = TL_SN(clean)(r6);
  r7 = TL_SN(clean)(r7);
  TL_FLIP(r8, r15);
  TL_FLIP(r9, r14);
  TL_FLIP(r10, r13);
  TL_FLIP(r11, r12);
  TL_CX(r8, r10);
  TL_CX(r9, r11);
  TL_CX(r12, r14);
  TL_CX(r13, r15);
  TL_CX(r8, r9);
  TL_CX(r10, r11);
  TL_CX(r12, r13);
  TL_CX(r14, r15);
  r8 = TL_SN(clean)(r8);
  r9 = TL_SN(clean)(r9);
  r10 = TL_SN(clean)(r10);
  r11 = TL_SN(clean)(r11);
  r12 = TL_SN(clean)(r12);
  r13 = TL_SN(clean)(r13);
  r14 = TL_SN(clean)(r14);
  r15 = TL_SN(clean)(r15);
  TL_FLIP(r0, r15);
  TL_FLIP(r1, r14);
  TL_FLIP(r2, r13);
  TL_FLIP(r3, r12);
  TL_FLIP(r4, r11);
  TL_FLIP(r5, r10);
  TL_FLIP(r6, r9);
  TL_FLIP(r7, r8);
  TL_CX(r0, r4);
  TL_CX(r1, r5);
  TL_CX(r2, r6);
  TL_CX(r3, r7);
  TL_CX(r8, r12);
  TL_CX(r9, r13);
  TL_CX(r10, r14);
  TL_CX(r11, r15);
  TL_CX(r0, r2);
  TL_CX(r1, r3);
  TL_CX(r4, r6);
  TL_CX(r5, r7);
  TL_CX(r8, r10);
  TL_CX(r9, r11);
  TL_CX(r12, r14);
  TL_CX(r13, r15);
  TL_CX(r0, r1);
  TL_CX(r2, r3);
  TL_CX(r4, r5);
  TL_CX(r6, r7);
  TL_CX(r8, r9);
  TL_CX(r10, r11);
  TL_CX(r12, r13);
  TL_CX(r14, r15);
  r0 = TL_SN(clean)(r0);
  r1 = TL_SN(clean)(r1);
  r2 = TL_SN(clean)(r2);
  r3 = TL_SN(clean)(r3);
  r4 = TL_SN(clean)(r4);
  r5 = TL_SN(clean)(r5);
  r6 = TL_SN(clean)(r6);
  r7 = TL_SN(clean)(r7);
  r8 = TL_SN(clean)(r8);
  r9 = TL_SN(clean)(r9);
  r10 = TL_SN(clean)(r10);
  r11 = TL_SN(clean)(r11);
  r12 = TL_SN(clean)(r12);
  r13 = TL_SN(clean)(r13);
  r14 = TL_SN(clean)(r14);
  r15 = TL_SN(clean)(r15);
  TL_VSTORE(a + 0 * TL_SL, TL_SN(lanes)(n, 0), r0);
  TL_VSTORE(a + 1 * TL_SL, TL_SN(lanes)(n, 1), r1);
  TL_VSTORE(a + 2 * TL_SL, TL_SN(lanes)(n, 2), r2);
  TL_VSTORE(a + 3 * TL_SL, TL_SN(lanes)(n, 3), r3);
  TL_VSTORE(a + 4 * TL_SL, TL_SN(lanes)(n, 4), r4);
  TL_VSTORE(a + 5 * TL_SL, TL_SN(lanes)(n, 5), r5);
  TL_VSTORE(a + 6 * TL_SL, TL_SN(lanes)(n, 6), r6);
  TL_VSTORE(a + 7 * TL_SL, TL_SN(lanes)(n, 7), r7);
  TL_VSTORE(a + 8 * TL_SL, TL_SN(lanes)(n, 8), r8);
  TL_VSTORE(a + 9 * TL_SL, TL_SN(lanes)(n, 9), r9);
  TL_VSTORE(a + 10 * TL_SL, TL_SN(lanes)(n, 10), r10);
  TL_VSTORE(a + 11 * TL_SL, TL_SN(lanes)(n, 11), r11);
  TL_VSTORE(a + 12 * TL_SL, TL_SN(lanes)(n, 12), r12);
  TL_VSTORE(a + 13 * TL_SL, TL_SN(lanes)(n, 13), r13);
  TL_VSTORE(a + 14 * TL_SL, TL_SN(lanes)(n, 14), r14);
  TL_VSTORE(a + 15 * TL_SL, TL_SN(lanes)(n, 15), r15);
}
