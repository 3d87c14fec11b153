// Part of cpusim, the CPU backend: see docs/cpu-backend.md.
#pragma once
#include "cpusim/cpusim.h"
