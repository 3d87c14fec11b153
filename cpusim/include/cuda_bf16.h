// Part of cpusim, the CPU backend: this library is outside what it can run.
#pragma once
#error "bfloat16 (cuda_bf16.h) needs a GPU: the CPU backend (cpusim) cannot run it"
