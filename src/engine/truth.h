/*
 * truth.h: what a Python test says where the program runs on MPS.  A test
 * is false on MPS when it holds only where CUDA (or XPU, an NPU) is in use:
 *
 *   `torch.cuda.is_available()` (in any import spelling, and
 *   `torch.xpu.is_available()`, `torch.npu.is_available()`: a Mac has
 *   neither), `torch.cuda.device_count() > 0`, `x.is_cuda`,
 *   `x.type == "cuda"`, `device == "cuda:0"`, `str(d).startswith("cuda")`,
 *   `"cuda" in str(d)`, `d.type in ("cuda", "xpu")`, `d != "mps"`,
 *   `backend == "nccl"`, `torch.version.cuda is not None`, flags named
 *   `cuda`, `use_cuda` and the like, flags that FSDP, DDP or DeepSpeed is
 *   in use (`use_fsdp`, `need_to_sync_fsdp_streams`, `trainer.deepspeed`),
 *   `is_*cuda*available()`
 *   (not `is_cuda_not_available()`, `cuda_unavailable()`);
 *   `"cuda" in X` where X is str(...) or named like a device; `x in T`
 *   where T holds "cuda..." and otherwise device types alone ("cpu",
 *   "xpu"; not "gpu" or "auto", which may stand for MPS);
 *   a name the innermost function around the use that binds it binds
 *   once, to such a test (`use_gpu = torch.cuda.is_available()`, and no
 *   parameter, loop, second assignment, `nonlocal` or exec() there), or,
 *   where no function around binds it, that the module binds once, at its
 *   top level (`HAS_CUDA = torch.cuda.is_available()`); flag names are
 *   read whatever their case (`USE_CUDA`);
 *   `A if T else B` by the branch T leaves on MPS, or by what both
 *   branches say, `True` and `False` included (`True if
 *   torch.cuda.is_available() else False`);
 *   `hasattr(torch, "accelerator")` where the versions in question all lie
 *   below 2.6, which brought torch.accelerator;
 *   a device stream (`self.stream`, `copy_stream is not None`) in a text
 *   whose streams are CUDA's alone, by the names it stores them in
 *   (mpsfix_truth_cuda_streams());
 *
 * and true on MPS when it holds wherever MPS is in use:
 * `torch.backends.mps.is_available()`, `x.type == "mps"`, `x.is_mps`,
 * flags named `no_cuda`, `disable_cuda`, `without_cuda`, `stream is None`
 * as above.  `not`, `and` and `or` combine them; anything else is unknown.
 */
#ifndef MPSFIX_TRUTH_H
#define MPSFIX_TRUTH_H

#include <tree_sitter/api.h>

#include "common.h"
#include "names.h"
#include "torchver.h"

typedef enum {
	MPSFIX_UNKNOWN_ON_MPS = 0,
	MPSFIX_FALSE_ON_MPS, /* the test fails whenever the program runs on MPS */
	MPSFIX_TRUE_ON_MPS   /* the test holds whenever the program runs on MPS */
} mpsfix_truth;

typedef struct {
	const char *src;
	mpsfix_names *names;      /* the text's imports, to qualify calls (may be NULL) */
	mpsfix_torch_range range; /* the torch versions in question */
	const struct mpsfix_truth_streams *streams; /* the text's CUDA streams (may be NULL) */
	/* the module's flags (HAS_CUDA = torch.cuda.is_available()), read at the
	   first question about a name of the module `root` (NULL: none asked) */
	struct mpsfix_truth_flags **flags;
	TSNode root;
	/* what values say alone: no flag is read by its name (use_cuda, args.cuda,
	   use_fsdp, a stream), only the tensor's and device's own x.is_cuda and
	   x.is_mps, and a name the module binds to a test (HAS_CUDA = ...).  A
	   name is trusted in a test that guards CUDA code, which would fail on a
	   Mac were the flag set there; a value such as pin_memory=use_cuda makes
	   nothing fail, so the name proves nothing. */
	bool values_only;
} mpsfix_truth_ctx;

/* What a module binds at its top level, read once (owned by the caller's text state). */
typedef struct mpsfix_truth_flags mpsfix_truth_flags;

void mpsfix_truth_flags_free(mpsfix_truth_flags *f);

/** What test expression `e` says where the program runs on MPS. */
mpsfix_truth mpsfix_truth_of(const mpsfix_truth_ctx *cx, TSNode e);

/*
 * The names a text stores its device streams in, when it makes them with
 * CUDA's API alone (torch.cuda.Stream, stream, current_stream,
 * default_stream, ExternalStream, set_stream; the same under torch.xpu and
 * torch.npu), so that where it runs on MPS none of them is made (the API
 * raises there): the last part of each target of an assignment whose value
 * makes one (`self.stream = torch.cuda.Stream() if s else None`, `copy_stream
 * = torch.cuda.current_stream()`), where that part's last word is stream or
 * streams.  None where the text also calls torch.Stream() (a stream of the
 * current accelerator: MPS's on a Mac) or asks torch.mps or
 * torch.accelerator for a stream, outside an if whose test is false on MPS.
 */
#define MPSFIX_TRUTH_STREAMS 16

typedef struct mpsfix_truth_streams {
	char names[MPSFIX_TRUTH_STREAMS][48]; /* lower case, as flags are compared */
	size_t n;
} mpsfix_truth_streams;

void mpsfix_truth_cuda_streams(mpsfix_truth_streams *out, const mpsfix_truth_ctx *cx, TSNode root);

/** A device string's kind: 'c' for "cuda..." (and "nccl"), 'm' for "mps...", 0 otherwise. */
char mpsfix_truth_device_kind(const char *s);

#endif
