// A kernel whose only purpose is to be compiled for known architectures (see CMakeLists.txt),
// so fatbin_test can compare what it parses with what nvcc was asked to embed.

__global__ void doctor_probe_scale(float* values, float factor, int count) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index < count) {
    values[index] *= factor;
  }
}
