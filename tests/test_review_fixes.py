"""Regression tests for bugs found in review of the namespace's short paths,
distributed checkpoints and the autograd-aware collectives."""
import subprocess
import sys
import textwrap


def test_all_to_all_gradients_stay_on_the_inputs_device():
    """distributed.nn.functional.all_to_all(_single)'s backward made its
    receive buffers on the default device, so a device input's gradient
    came back on the CPU.  A 1-rank world on the emulated device, in a
    subprocess (enabling the fake device changes the process)."""
    code = textwrap.dedent("""
        import tempfile
        import torchlike as tl, torchlike.distributed as dist
        import torchlike.distributed.nn.functional as DF
        tl._C._fake_enable()
        tl._C._fake_emulate_device()
        dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(),
                                rank=0, world_size=1)
        x = tl.arange(4.0).to("fake").requires_grad_()
        y = DF.all_to_all_single(tl.empty(4, device="fake"), x)
        (y * y).sum().backward()
        assert x.grad.device == x.device, x.grad.device
        assert x.grad.cpu().tolist() == [0.0, 2.0, 4.0, 6.0]
        x.grad = None
        (out,) = DF.all_to_all([tl.empty(4, device="fake")], [x])
        (out * 3).sum().backward()
        assert x.grad.device == x.device, x.grad.device
        assert x.grad.cpu().tolist() == [3.0] * 4
        dist.destroy_process_group()
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "ok" in r.stdout, r.stdout + r.stderr
