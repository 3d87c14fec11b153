// Part of cpusim, the CPU backend: this library is outside what it can run.
#pragma once
#error "cuBLASLt needs a GPU: the CPU backend (cpusim) cannot run it"
