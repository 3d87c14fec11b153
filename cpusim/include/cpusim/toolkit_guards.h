// The include guards of the CUDA Toolkit's own runtime headers (CUDA 13), defined because
// cpusim's headers stand in for them:
// * code that tests them sees the runtime as included, as on a GPU: cuda-samples' helper_cuda.h
//   defines checkCudaErrors and getLastCudaError only `#ifdef __DRIVER_TYPES_H__`, and
//   findCudaDevice only `#ifdef __CUDA_RUNTIME_H__`;
// * a toolkit header reached anyway (the toolkit's include folder on the path, or one of its
//   headers that cpusim does not stand in for including a sibling by quotes) finds its guard set
//   and is empty, instead of defining float4 or cudaError_t a second time.
// Only the guards of headers whose content cpusim provides (or rejects) are here: the libraries'
// (CUBLAS_API_H_, _CUFFT_H_, CURAND_H_...) and the driver API's (__cuda_cuda_h__) stay undefined,
// since code that sees one calls that library.
#pragma once

// The public runtime headers (cuda_runtime.h includes them all).
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
#define __DRIVER_TYPES_H__
#define __DRIVER_FUNCTIONS_H__
#define __VECTOR_TYPES_H__
#define __VECTOR_FUNCTIONS_H__
#define __VECTOR_FUNCTIONS_HPP__
#define __DEVICE_TYPES_H__
#define __DEVICE_LAUNCH_PARAMETERS_H__
#define __CUDA_DEVICE_RUNTIME_API_H__
#define __CHANNEL_DESCRIPTOR_H__
#define __SURFACE_TYPES_H__
#define __TEXTURE_TYPES_H__
#define __SURFACE_INDIRECT_FUNCTIONS_H__
#define __TEXTURE_INDIRECT_FUNCTIONS_H__
#define __DEVICE_ATOMIC_FUNCTIONS_H__
#define __SM_20_ATOMIC_FUNCTIONS_H__
#define __SM_32_ATOMIC_FUNCTIONS_H__
#define __SM_35_ATOMIC_FUNCTIONS_H__
#define __SM_60_ATOMIC_FUNCTIONS_H__
#define __SM_20_INTRINSICS_H__
#define __SM_30_INTRINSICS_H__
#define __SM_32_INTRINSICS_H__
#define __SM_35_INTRINSICS_H__
#define __SM_61_INTRINSICS_H__
// The compiler's internal headers under crt/, which the public ones include.
#define __HOST_CONFIG_H__
#define __HOST_DEFINES_H__
#define __COMMON_FUNCTIONS_H__
#define __DEVICE_FUNCTIONS_H__
#define __DEVICE_FUNCTIONS_HPP__
#define __DEVICE_DOUBLE_FUNCTIONS_H__
#define __DEVICE_DOUBLE_FUNCTIONS_HPP__
#define __MATH_FUNCTIONS_H__
#define __MATH_FUNCTIONS_HPP__
#define __SM_70_RT_H__
#define __SM_80_RT_H__
#define __SM_90_RT_H__
#define __SM_100_RT_H__
