/* py_cpuid.c - torchlike._cpuid: the x86 CPUID and XGETBV instructions, raw.
 *
 * A module of its own, linked to nothing but Python: it is imported before
 * torchlike._C, whose loading also loads OpenBLAS, so that the BLAS policy
 * (torchlike/_blas_policy.py) can read the CPU and set OPENBLAS_CORETYPE
 * while OpenBLAS can still take it (it reads the variable once, when the
 * library is initialised).  The decoding is the policy's, in Python, where
 * a test can feed it any CPU's registers.  On other architectures both
 * functions return None.                                                  */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#define TL_HAVE_CPUID 1
#if defined(_MSC_VER)
#include <immintrin.h>
#include <intrin.h>
#else
#include <cpuid.h>
#endif
#endif

/* cpuid(leaf, subleaf=0) -> (eax, ebx, ecx, edx), or None off x86. */
static PyObject *py_cpuid(PyObject *self, PyObject *args)
{
  (void)self;
  unsigned int leaf, subleaf = 0;
  if (!PyArg_ParseTuple(args, "I|I:cpuid", &leaf, &subleaf))
    return NULL;
#ifdef TL_HAVE_CPUID
  unsigned int r[4];
#if defined(_MSC_VER)
  __cpuidex((int *)r, (int)leaf, (int)subleaf);
#else
  __cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
#endif
  return Py_BuildValue("(IIII)", r[0], r[1], r[2], r[3]);
#else
  Py_RETURN_NONE;
#endif
}

/* xgetbv(index) -> the extended control register's value, or None off x86.
 * The caller checks OSXSAVE (cpuid leaf 1, ecx bit 27) first: without it the
 * instruction faults. */
static PyObject *py_xgetbv(PyObject *self, PyObject *arg)
{
  (void)self;
  unsigned long index = PyLong_AsUnsignedLong(arg);
  if (index == (unsigned long)-1 && PyErr_Occurred())
    return NULL;
#ifdef TL_HAVE_CPUID
#if defined(_MSC_VER)
  unsigned long long v = _xgetbv((unsigned int)index);
#else
  unsigned int lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"((unsigned int)index));
  unsigned long long v = ((unsigned long long)hi << 32) | lo;
#endif
  return PyLong_FromUnsignedLongLong(v);
#else
  Py_RETURN_NONE;
#endif
}

static PyMethodDef functions[] = {
    {"cpuid", py_cpuid, METH_VARARGS, "cpuid(leaf, subleaf=0) -> (eax, ebx, ecx, edx) or None"},
    {"xgetbv", py_xgetbv, METH_O, "xgetbv(index) -> int or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "torchlike._cpuid",
    .m_doc = "The x86 CPUID and XGETBV instructions (None elsewhere).",
    .m_size = -1,
    .m_methods = functions,
};

PyMODINIT_FUNC PyInit__cpuid(void) { return PyModule_Create(&module); }
