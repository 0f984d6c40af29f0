// A second translation unit, built for another architecture than fatbin_probe_scale.cu, so the
// linked probe library holds two fatbinary containers with different images.

__global__ void doctor_probe_offset(float* values, float offset, int count) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index < count) {
    values[index] += offset;
  }
}
