// Part of cpusim, the CPU backend: outside its subset.
#pragma once
#error "cooperative_groups/scan.h (cg::inclusive_scan, cg::exclusive_scan) is not in the CPU backend's (cpusim) subset: write the scan with tile.shfl_up (cooperative_groups.h and cg::reduce are)"
