"""Token streams for the GPT workload: generated from the seed (no download), or a nanoGPT train.bin.

The generated stream is a synthetic language with structure a model can learn: a lexicon of random
"words" (1-6 tokens each) drawn with Zipf frequencies and separated by token 0. Loss falls from
ln(vocab) towards the stream's entropy, so a short CPU run shows real learning.
"""

from __future__ import annotations

from pathlib import Path

import torch

from app.host.common.errors import UsageError
from app.train.workloads import VALIDATION_SEED_OFFSET
from app.train.workloads.host_memory import require_fits

SEPARATOR = 0
#: Host memory a generated token takes at the generator's peak: about a quarter of a word per token, and a word
#: passes through a few int64 rows of 7 (its spelling, the mask, the separator's move) before the int32 stream.
GENERATED_BYTES_PER_TOKEN = 64
#: Token streams live in host memory (the loader moves batches), also when a model is built on another
#: default device (`--dry-run` builds it on "meta": no memory).
CPU = torch.device("cpu")


def synthetic_token_stream(length: int, vocab_size: int, seed: int, lexicon_size: int = 4096,
                           held_out: bool = False) -> torch.Tensor:
    """`length` int32 tokens in [0, vocab_size), identical on every rank for the same seed. `held_out`:
    validation text, other words of the same lexicon (the language the training stream is written in)."""
    require_fits("data.val_tokens" if held_out else "data.tokens", length, GENERATED_BYTES_PER_TOKEN,
                 "100000" if held_out else "1000000")
    generator = torch.Generator().manual_seed(seed)
    word_lengths = torch.randint(1, 7, (lexicon_size,), generator=generator, device=CPU)
    spellings = torch.randint(1, vocab_size, (lexicon_size, 6), generator=generator, device=CPU)
    if held_out:  # its words from another seed, its lexicon from run.seed
        generator.manual_seed(seed + VALIDATION_SEED_OFFSET)
    zipf = 1.0 / (torch.arange(lexicon_size, dtype=torch.float64, device=CPU) + 2.7)
    # Each word takes its letters plus a separator: draw enough words to fill the stream.
    mean_word = float((word_lengths + 1).double().mul(zipf / zipf.sum()).sum())
    words = torch.multinomial(zipf, int(length / mean_word * 1.1) + 16, replacement=True, generator=generator)
    lengths = word_lengths[words] + 1
    spelled = torch.cat([spellings[words], torch.full((len(words), 1), SEPARATOR, device=CPU)], dim=1)
    keep = torch.arange(7, device=CPU).expand(len(words), 7) < lengths.unsqueeze(1)
    # The separator sits at column 6; move it right after each word's last letter.
    columns = torch.arange(7, device=CPU).expand(len(words), 7)
    spelled = torch.where(columns == (lengths - 1).unsqueeze(1), SEPARATOR, spelled)
    stream = spelled[keep]
    if len(stream) < length:  # vanishingly unlikely with the 10% margin; fail loudly rather than wrap
        raise RuntimeError(f"generated {len(stream)} tokens, wanted {length}")
    return stream[:length].to(torch.int32)


def load_token_file(path: Path, vocab_size: int, key: str = "data.tokens_file") -> torch.Tensor:
    """Memory-map a nanoGPT-style file of little-endian uint16 tokens (`key`: the setting that named it)."""
    example = f"{key}=data/{'val' if 'val' in key else 'train'}.bin"
    try:
        size = path.stat().st_size
    except OSError as err:
        raise UsageError(
            f"{key}={str(path)!r} cannot be read ({err.strerror}); example: {example}"
        ) from None
    if not path.is_file():
        raise UsageError(f"{key}={str(path)!r} is a directory or a device, not a file of tokens; example: {example}")
    if size < 4 or size % 2:
        raise UsageError(f"{key}={str(path)!r} is not a uint16 token file ({size} bytes)")
    tokens = torch.from_file(str(path), shared=False, size=size // 2, dtype=torch.uint16)
    # uint16 has few kernels: take the maximum chunk by chunk in int32, without copying the whole file.
    chunk = 1 << 24
    largest = max(int(tokens[i : i + chunk].to(torch.int32).max()) for i in range(0, len(tokens), chunk))
    if largest >= vocab_size:
        raise UsageError(
            f"{key}={str(path)!r} holds token id {largest} but model.vocab_size={vocab_size}; "
            f"example: model.vocab_size={largest + 1}"
        )
    return tokens


class TokenWindows:
    """Non-overlapping windows of block_size+1 tokens: inputs are the first block_size, targets shifted by one."""

    def __init__(self, stream: torch.Tensor, block_size: int) -> None:
        self.stream = stream
        self.block_size = block_size
        self.offsets = torch.arange(block_size + 1, device=CPU)

    def __len__(self) -> int:
        return max(0, (len(self.stream) - 1) // self.block_size)

    def get_batch(self, indices: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        windows = self.stream[(indices * self.block_size).unsqueeze(1) + self.offsets].long()
        return windows[:, :-1], windows[:, 1:]
