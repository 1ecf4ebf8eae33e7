"""A GPT-style causal language model (nanoGPT's architecture) and its token stream.

Sizes run from a CPU demo (`tiny`) to GPT-2 small (124M) and medium (350M). Attention uses
`scaled_dot_product_attention`, which picks the fused flash kernels on Hopper GPUs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from app.host.common.errors import UsageError
from app.train.config import Config
from app.train.workloads import Workload
from app.train.workloads.tokens import TokenWindows, load_token_file, synthetic_token_stream


@dataclass(frozen=True)
class GPTShape:
    n_layer: int
    n_head: int
    n_embd: int
    block_size: int
    vocab_size: int
    dropout: float = 0.0


PRESETS = {
    "tiny": GPTShape(n_layer=2, n_head=2, n_embd=64, block_size=64, vocab_size=512),
    "small": GPTShape(n_layer=6, n_head=6, n_embd=384, block_size=256, vocab_size=8192),
    "gpt2": GPTShape(n_layer=12, n_head=12, n_embd=768, block_size=1024, vocab_size=50304),
    "gpt2-medium": GPTShape(n_layer=24, n_head=16, n_embd=1024, block_size=1024, vocab_size=50304),
    "gpt2-large": GPTShape(n_layer=36, n_head=20, n_embd=1280, block_size=1024, vocab_size=50304),
    "gpt2-xl": GPTShape(n_layer=48, n_head=25, n_embd=1600, block_size=1024, vocab_size=50304),
}


def resolve_shape(config: Config) -> GPTShape:
    preset = PRESETS[config.model.size]
    values = {
        key: getattr(config.model, key) or getattr(preset, key)
        for key in ("n_layer", "n_head", "n_embd", "block_size", "vocab_size")
    }
    shape = GPTShape(**values, dropout=config.model.dropout)
    if shape.n_embd % shape.n_head:
        raise UsageError(
            f"model.n_embd={shape.n_embd} is not divisible by model.n_head={shape.n_head}; "
            f"example: model.n_embd={shape.n_head * 64}"
        )
    return shape


class CausalSelfAttention(nn.Module):
    def __init__(self, shape: GPTShape) -> None:
        super().__init__()
        self.n_head = shape.n_head
        self.qkv = nn.Linear(shape.n_embd, 3 * shape.n_embd)
        self.proj = nn.Linear(shape.n_embd, shape.n_embd)
        self.dropout = shape.dropout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        q, k, v = self.qkv(x).split(width, dim=2)
        q, k, v = (t.view(batch, length, self.n_head, width // self.n_head).transpose(1, 2) for t in (q, k, v))
        dropout = self.dropout if self.training else 0.0
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=dropout, is_causal=True)
        return self.proj(y.transpose(1, 2).contiguous().view(batch, length, width))


class Block(nn.Module):
    def __init__(self, shape: GPTShape) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(shape.n_embd)
        self.attn = CausalSelfAttention(shape)
        self.ln2 = nn.LayerNorm(shape.n_embd)
        self.mlp = nn.Sequential(
            nn.Linear(shape.n_embd, 4 * shape.n_embd),
            nn.GELU(approximate="tanh"),
            nn.Linear(4 * shape.n_embd, shape.n_embd),
            nn.Dropout(shape.dropout),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, shape: GPTShape) -> None:
        super().__init__()
        self.shape = shape
        self.token_embedding = nn.Embedding(shape.vocab_size, shape.n_embd)
        self.position_embedding = nn.Embedding(shape.block_size, shape.n_embd)
        self.drop = nn.Dropout(shape.dropout)
        self.blocks = nn.ModuleList(Block(shape) for _ in range(shape.n_layer))
        self.ln_f = nn.LayerNorm(shape.n_embd)
        self.head = nn.Linear(shape.n_embd, shape.vocab_size, bias=False)
        self.head.weight = self.token_embedding.weight  # weight tying, as GPT-2
        self.apply(self._init_weights)
        for name, parameter in self.named_parameters():
            if name.endswith("proj.weight") or name.endswith("mlp.2.weight"):
                # GPT-2: scale residual projections by depth so activations do not grow with layers.
                nn.init.normal_(parameter, mean=0.0, std=0.02 / math.sqrt(2 * shape.n_layer))

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.drop(self.token_embedding(tokens) + self.position_embedding(positions))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))

    def num_parameters(self, non_embedding: bool = True) -> int:
        total = sum(p.numel() for p in self.parameters())
        return total - self.position_embedding.weight.numel() if non_embedding else total

    def flops_per_token(self) -> float:
        """Training FLOPs per token: 6N for the weights plus the attention scores (PaLM appendix B)."""
        s = self.shape
        return 6 * self.num_parameters() + 12 * s.n_layer * s.n_embd * s.block_size


def next_token_loss(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), targets.reshape(-1))


def build_gpt(config: Config) -> Workload:
    shape = resolve_shape(config)
    if config.data.tokens_file:
        stream = load_token_file(Path(config.data.tokens_file), shape.vocab_size)
    else:
        stream = synthetic_token_stream(config.data.tokens, shape.vocab_size, config.run.seed)
    dataset = TokenWindows(stream, shape.block_size)
    if len(dataset) == 0:
        raise UsageError(
            f"data.tokens={len(stream)} is shorter than one window of model.block_size+1={shape.block_size + 1} "
            f"tokens; example: data.tokens={shape.block_size * 1000}"
        )
    model = GPT(shape)
    return Workload(model, dataset, next_token_loss, shape.block_size, model.flops_per_token(),
                    shard_units=lambda gpt: list(gpt.blocks), val_dataset=_validation_windows(config, shape))


def _validation_windows(config: Config, shape: GPTShape) -> TokenWindows | None:
    """Held-out windows when validation is on: the generated stream's held-out text, or val.bin."""
    if not config.train.eval_every:
        return None
    if not config.data.tokens_file:
        stream = synthetic_token_stream(config.data.val_tokens, shape.vocab_size, config.run.seed, held_out=True)
    else:
        path = Path(config.data.val_tokens_file or Path(config.data.tokens_file).with_name("val.bin"))
        if not config.data.val_tokens_file and not path.exists():
            raise UsageError(
                f"train.eval_every={config.train.eval_every} needs validation tokens: there is no {path} beside "
                f"data.tokens_file; example: data.val_tokens_file=data/val.bin (or train.eval_every=0)"
            )
        stream = load_token_file(path, shape.vocab_size, key="data.val_tokens_file")
    windows = TokenWindows(stream, shape.block_size)
    if len(windows) == 0:
        raise UsageError(
            f"the validation stream has {len(stream)} tokens, fewer than one window of model.block_size+1="
            f"{shape.block_size + 1}; example: data.val_tokens={shape.block_size * 100}"
        )
    return windows
