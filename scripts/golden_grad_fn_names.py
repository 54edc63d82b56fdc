"""Record the names PyTorch gives the autograd nodes of common calls (what
``repr`` of a result shows as ``grad_fn=<MulBackward0>``), for
tests/test_grad_fn_names.py.

Run with an interpreter that has PyTorch:
    python scripts/golden_grad_fn_names.py
writes tests/golden/grad_fn_names.json: [call, [node name, class name]] pairs,
the call a Python expression over T (the library) and the inputs below."""
from golden_calls import det, record


def inputs(T):
    x = (det(T, 3, 4) + 1.5).requires_grad_()
    y = (det(T, 3, 4, s=0.7) + 1.5).requires_grad_()
    m = (det(T, 4, 4, s=0.4) + T.eye(4) * 4).requires_grad_()
    v = det(T, 4, s=0.9).requires_grad_()
    img = det(T, 1, 2, 4, 4).requires_grad_()
    z = T.complex(det(T, 3), det(T, 3, s=0.5)).requires_grad_()
    return {"T": T, "F": T.nn.functional, "x": x, "y": y, "m": m, "v": v, "img": img, "z": z,
            "i": T.tensor([0, 2]), "k": T.tensor([0, 1, 2]), "w": det(T, 2, 2, 3, 3)}


def describe(r):
    if isinstance(r, (tuple, list)):
        r = r[0]
    fn = r.grad_fn
    return None if fn is None else [fn.name(), type(fn).__name__]


CALLS = """x + y|x + 1|1 + x|x - y|x - 1|1 - x|x * y|x * 2|x / y|x / 2|2 / x|x ** 2|x ** y|2 ** x
x.pow(2.5)|-x|x.abs()|x.exp()|x.log()|x.sum()|x.sum(0)|x.sum(dim=(0, 1))|x.sum(dtype=T.float64)
x.mean()|x.mean(0)|x.mean(0, keepdim=True)|x.max()|x.max(0)|x.max(y)|x.min()|x.min(1)|x.min(y)
x.amax(0)|x.amin()|x.prod()|x.prod(0)|x.std()|x.std(0)|x.var()|x.var(1)|x.median()|x.median(0)
x.nanmedian()|x.kthvalue(2)|x.mode()|x.logsumexp(1)|x.cumsum(0)|x.cumprod(1)|x.cummax(0)|x.nansum()
x.norm()|x.norm(dim=1)|x.norm(p=1)|T.linalg.vector_norm(x)|T.linalg.matrix_norm(m)|T.norm(x, 'fro')
x.t()|x.T|x.mT|x.transpose(0, 1)|x.view(12)|x.view(-1, 2)|x.reshape(4, 3)|x.flatten()|x.ravel()
x.unflatten(1, (2, 2))|x[0]|x[:, 1]|x[1:]|x[:, ::2]|x[i]|x[x > 1]|x[None]|x[..., 0]|x.unsqueeze(0)
x.squeeze()|x[None].squeeze(0)|x.expand(2, 3, 4)|x.expand_as(x[None].expand(2, 3, 4))|x.repeat(2, 1)
x.permute(1, 0)|x.movedim(0, 1)|x.swapaxes(0, 1)|x.contiguous()|x.clone()|x.narrow(1, 0, 2)
x.split(2, 1)|x.chunk(2)|x.unbind()|x.tensor_split(2)|x.diag()|m.diag()|m.diagonal()|m.trace()
m.tril()|m.triu()|x.flip(0)|x.roll(1, 0)|x.unfold(1, 2, 1)|x.as_strided((2, 2), (1, 1))
x.select(1, 0)|x.index_select(0, i)|x.gather(1, T.zeros(3, 1, dtype=T.long))|x.masked_select(x > 1)
x.masked_fill(x > 1, 0.0)|x.where(x > 1, 0.0)|T.where(x > 1, x, y)|x.take(i)
x.scatter(1, T.zeros(3, 1, dtype=T.long), 1.0)|x.scatter(1, T.zeros(3, 1, dtype=T.long), y)
x.scatter_add(1, T.zeros(3, 1, dtype=T.long), y)|x.index_add(0, i, y[:2])|x.index_put((i,), y[:2])
x.index_fill(0, i, 1.0)|x.index_copy(0, i, y[:2])|T.cat([x, y])|T.stack([x, y])|T.hstack([x, y])
x.relu()|x.sigmoid()|x.tanh()|x.sqrt()|x.rsqrt()|x.sin()|x.cos()|x.tan()|x.asin().nan_to_num()
x.floor()|x.ceil()|x.round()|x.round(decimals=1)|x.trunc()|x.frac()|x.sign()|x.sgn()|x.exp2()
x.expm1()|x.log1p()|x.log2()|x.log10()|x.reciprocal()|x.square()|x.erf()|x.erfinv()|x.lgamma()
x.digamma()|x.polygamma(1)|x.i0()|x.sinc()|x.logit()|x.deg2rad()|x.sinh()|x.xlogy(y)|x.hypot(y)
T.atan2(x, y)|x.fmod(0.3)|x.fmod(y)|x.remainder(0.3)|x.remainder(y)|x.div(y, rounding_mode='floor')
x.div(2, rounding_mode='trunc')|x.true_divide(y)|x.mul(2)|x.add(y, alpha=2)|x.sub(1, alpha=2)
T.rsub(x, 1)|T.rsub(x, y)|T.maximum(x, y)|T.minimum(x, y)|T.fmax(x, y)|T.fmin(x, y)
x.clamp(0.6, 1)|x.clamp(min=0.6)|x.clamp(max=y)|T.clamp(x, y, y + 1)|x.clip(0, 1)
x.lerp(y, 0.5)|x.lerp(y, x)|x.addcmul(x, y)|x.addcdiv(x, y)|x.nan_to_num()|x.float_power(2)
x.to(T.float64)|x.double()|x.half()|x.float()|x.type(T.float64)|x.to(T.complex64)
F.softmax(x, 1)|F.log_softmax(x, 1)|x.softmax(-1)|F.gelu(x)|F.gelu(x, approximate='tanh')|F.silu(x)
F.leaky_relu(x)|F.elu(x)|F.selu(x)|F.celu(x)|F.mish(x)|F.hardswish(x)|F.hardsigmoid(x)|F.relu6(x)
F.hardtanh(x)|F.softplus(x)|F.softsign(x)|F.tanhshrink(x)|F.logsigmoid(x)|F.glu(x)|F.prelu(x, v[:1])
F.threshold(x, 1.0, 0.0)|F.dropout(x, 0.0)|F.dropout(x, 0.5, training=False)
F.linear(x, m)|F.linear(x, m, v)|F.linear(x[None], m)|F.linear(x[None], m, v)|F.bilinear(x, x, m[None], v[:1])
x @ m|m @ v|v @ v|x[None] @ m|T.mm(x, m)|T.matmul(x, m)|T.bmm(x[None], m[None])|T.addmm(v, x, m)
T.mv(m, v)|T.dot(v, v)|T.outer(v, v)|T.kron(v, v)|T.tensordot(x, m, 1)|T.einsum('ij,jk->ik', x, m)
T.einsum('ij->j', x)|T.baddbmm(x[None], x[None], m[None])|T.addmv(v, m, v)|T.addr(m, v, v)
T.cross(x[:, :3], y[:, :3], dim=1)|T.linalg.cross(x[:, :3], y[:, :3])|T.cdist(x, y)
F.cosine_similarity(x, y)|F.pairwise_distance(x, y)|F.normalize(x)|T.trapezoid(x)|T.diff(x)
T.linalg.inv(m)|T.inverse(m)|T.det(m)|T.logdet(m)|T.slogdet(m)|T.linalg.solve(m, v)|T.linalg.cholesky(m @ m.mT)
T.linalg.qr(m)|T.linalg.svd(m)|T.linalg.svdvals(m)|T.linalg.eigh(m + m.mT)|T.linalg.eigvalsh(m + m.mT)
T.linalg.pinv(m)|T.linalg.lstsq(m, v[:, None])|T.linalg.matrix_power(m, 3)|T.linalg.matrix_exp(m)
T.linalg.solve_triangular(m.triu(), v[:, None], upper=True)|T.cholesky_solve(v[:, None], m.tril())
F.mse_loss(x, y)|F.l1_loss(x, y)|F.cross_entropy(x, k)|F.cross_entropy(x, k, label_smoothing=0.1)
F.nll_loss(x, k)|F.binary_cross_entropy(x.sigmoid(), y.sigmoid())|F.binary_cross_entropy_with_logits(x, y)
F.smooth_l1_loss(x, y)|F.huber_loss(x, y)|F.kl_div(x, y)|F.soft_margin_loss(x, y.detach().sign())|F.mse_loss(x, y, reduction='none')
F.margin_ranking_loss(v, v.flip(0), T.ones(4))|F.hinge_embedding_loss(x, T.ones(3, 4))|F.poisson_nll_loss(x, y)
F.gaussian_nll_loss(x, y, T.ones(3, 4))|F.multi_margin_loss(x, k)|F.multilabel_soft_margin_loss(x, y)
F.triplet_margin_loss(x, y, x.flip(0))|F.cosine_embedding_loss(x, y, T.ones(3))|F.ctc_loss(x[:, None, :].log_softmax(2), T.tensor([[1]]), [3], [1])
F.layer_norm(x, (4,))|F.group_norm(img, 1)|F.batch_norm(img, None, None, training=True)|F.instance_norm(img)
F.rms_norm(x, (4,))|F.local_response_norm(img, 2)|F.embedding(i, m)|F.embedding_bag(k, m, T.tensor([0, 1]))
F.one_hot(k, 4).float() * x|F.pad(x, (1, 1))|F.pad(img, (1, 1, 1, 1), mode='reflect')|F.pad(img, (1, 1, 1, 1), mode='replicate')
F.pad(img, (1, 1, 1, 1), mode='circular')|F.conv1d(x[None], m[:2, :3, None])|F.conv2d(img, w)
F.conv2d(img, w, padding=1, stride=2)|F.conv_transpose2d(img, w.transpose(0, 1))
F.avg_pool1d(x[None], 2)|F.max_pool1d(x[None], 2)|F.avg_pool2d(img, 2)|F.max_pool2d(img, 2)
F.adaptive_avg_pool2d(img, 1)|F.adaptive_max_pool2d(img, 1)|F.adaptive_avg_pool1d(x[None], 2)|F.lp_pool2d(img, 2, 2)
F.interpolate(x[None], scale_factor=2)|F.interpolate(img, scale_factor=2, mode='bilinear')
F.interpolate(img, size=3, mode='bicubic')|F.interpolate(x[None], size=5, mode='linear')|F.pixel_shuffle(T.cat([img, img], 1), 2)
F.unfold(img, 2)|F.fold(F.unfold(img, 2), 4, 2)|F.grid_sample(img, T.zeros(1, 2, 2, 2), align_corners=False)
F.affine_grid(m[None, :2, :3], (1, 1, 2, 2), align_corners=False)|F.scaled_dot_product_attention(img, img, img)
F.scaled_dot_product_attention(img, img, img, is_causal=True)|F.dropout1d(x[None], 0.0)|F.alpha_dropout(x, 0.0)
T.polar(x, y)|T.complex(x, y)|T.view_as_complex(T.stack([x, y], -1))|T.view_as_real(z)|T.real(z)|T.imag(z)
z.abs()|z.angle()|z.conj()|z.conj_physical()|z * z|z.exp()|T.fft.fft(x)|T.fft.rfft(x)|T.fft.irfft(x)
T.fft.fft2(x)|T.fft.ifft(z)|T.fft.fftshift(x)|T.stft(v.repeat(8), 8, return_complex=True)
x.new_ones(2) * x[0, :2]|T.diagonal(m)|T.diag_embed(v)|T.block_diag(x, m)|T.cartesian_prod(v, v)
T.tril_indices(3, 3).float() * x[0, :1]|T.atleast_2d(v)|T.broadcast_to(v, (3, 4))|T.broadcast_tensors(x, v)
T.meshgrid(v, v, indexing='ij')|T.combinations(v)|x.topk(2)|x.sort(1)|x.argsort()|x.msort()
x.unique()|x.all()|T.std_mean(x, 0)|T.var_mean(x)|x.aminmax()|T.cov(x)|T.corrcoef(x)|x.renorm(2, 0, 1)
x.nanmean()|x.count_nonzero()|T.searchsorted(v.sort()[0], v)|T.bucketize(v, v.sort()[0])
x.exp_()|x.mul_(2)|x.add_(y)|x.clamp_(0, 1)|x.zero_()|x.fill_(2.0)|x.copy_(y)|x.relu_()|x.sigmoid_()
x.masked_fill_(x > 1, 0)|x.index_add_(0, i, y[:2])|x.scatter_(1, T.zeros(3, 1, dtype=T.long), 1.0)
F.relu(x, inplace=True)|F.relu_(x)|T.relu_(x)|F.elu(x, inplace=True)|F.elu_(x)|F.selu(x, inplace=True)
F.celu(x, inplace=True)|F.leaky_relu(x, 0.1, inplace=True)|F.leaky_relu_(x, 0.1)|F.hardtanh_(x)
F.hardtanh(x, 0.5, 1.2, inplace=True)|F.relu6(x, inplace=True)|F.threshold(x, 1.0, 0.5, inplace=True)
F.threshold_(x, 1.0, 0.5)|F.silu(x, inplace=True)|F.mish(x, inplace=True)|F.hardswish(x, inplace=True)
F.hardsigmoid(x, inplace=True)|x.tanh_()|x.clamp_(y)
x.detach().requires_grad_() * 2|x.detach()""".replace("\n", "|").split("|")


if __name__ == "__main__":
    def env(T):
        e = inputs(T)
        # in-place calls need a non-leaf to write into
        e["x"] = e["x"] * 1
        return e
    record(CALLS, env, describe, "grad_fn_names")
