// A counting `malloc` for the allocation tests.
//
// The test binary defines `malloc`, so every library in the process, the
// Swift runtime included, allocates through it (the executable exports it
// with --export-dynamic-symbol=malloc). It counts calls made on the thread
// being measured and forwards to the real allocator: glibc's, or, in a
// build with AddressSanitizer or ThreadSanitizer, the sanitizer's (whose
// interceptor is linked into the executable and found through a weak
// reference, without dlsym). Written in C so that it can run before a
// sanitizer has initialised: it is not instrumented.
#include "AllocationCounting.h"

#ifdef __linux__

#include <pthread.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *___interceptor_malloc(size_t size) __attribute__((weak));

static unsigned long measured_thread;  // pthread_self() of the measured thread, or 0
static long allocations;

__attribute__((disable_sanitizer_instrumentation))
void *malloc(size_t size) {
    unsigned long measured = __atomic_load_n(&measured_thread, __ATOMIC_RELAXED);
    if (measured != 0 && measured == (unsigned long)pthread_self()) {
        __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    }
    if (___interceptor_malloc) return ___interceptor_malloc(size);
    return __libc_malloc(size);
}

void allocation_counting_begin(void) {
    __atomic_store_n(&allocations, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&measured_thread, (unsigned long)pthread_self(), __ATOMIC_SEQ_CST);
}

long allocation_counting_end(void) {
    __atomic_store_n(&measured_thread, 0, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&allocations, __ATOMIC_SEQ_CST);
}
#endif
