#ifndef ALLOCATION_COUNTING_H
#define ALLOCATION_COUNTING_H

/// Starts counting `malloc` calls made on the calling thread.
void allocation_counting_begin(void);

/// Stops counting and returns the number of calls since the matching begin.
long allocation_counting_end(void);

#endif
