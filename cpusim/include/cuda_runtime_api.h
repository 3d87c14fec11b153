// Part of cpusim, the CPU backend: see cpusim/README.md.
#pragma once
#include "cpusim/cpusim.h"
