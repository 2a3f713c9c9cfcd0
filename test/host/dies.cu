// A program that dies in the middle of a launch (test/host/death.test.ts): it prints its process
// id, then launches a kernel that spins on device memory nothing writes, while
//   ./dies wait   waits to be killed from outside;
//   ./dies exit   calls _exit(3) from another thread after half a second;
//   ./dies segv   dereferences a null pointer in another thread after half a second;
// a second argument is the number of blocks (default 1), for runs on several threads.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <unistd.h>

__global__ void spin(volatile int *flag) {
  while (*flag == 0) {
  }
}

static void *die(void *how) {
  usleep(500 * 1000);
  if (strcmp((const char *)how, "exit") == 0) _exit(3);
  *(volatile int *)nullptr = 1;
  return nullptr;
}

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "wait";
  int *flag;
  cudaMalloc(&flag, sizeof(int));
  cudaMemset(flag, 0, sizeof(int));
  printf("pid %d\n", (int)getpid());
  fflush(stdout);
  pthread_t t;
  if (strcmp(how, "wait") != 0) pthread_create(&t, nullptr, die, (void *)how);
  spin<<<argc > 2 ? atoi(argv[2]) : 1, 32>>>(flag);
  cudaError_t e = cudaDeviceSynchronize();
  printf("the launch returned %s\n", cudaGetErrorName(e));
  return 0;
}
