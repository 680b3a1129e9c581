/* Kernel heap: kmalloc/kzalloc/kfree on top of the page allocator. Small
 * sizes come from per-class slab pages, larger ones from whole pages.
 * Every pointer is 16-byte aligned. Thread-safe (lock order: heap, then pmm). */
#ifndef HV_MM_HEAP_H
#define HV_MM_HEAP_H
#include "compiler.h"

#define HEAP_ALIGN 16

/* NULL when size is 0 or memory is exhausted. */
void *kmalloc(size_t size);
void *kzalloc(size_t size);
void *kcalloc(size_t n, size_t size);     /* zeroed; NULL on n*size overflow */
/* NULL is ignored; a pointer kmalloc never returned, or a double free, is
 * logged and ignored (the memory leaks rather than corrupts). */
void kfree(void *p);
/* Usable bytes behind p (>= the size asked for). */
size_t ksize(const void *p);

struct heap_stats {
	uint64_t slab_pages, big_pages;   /* pages taken from pmm */
	uint64_t live_objects;
	uint64_t bad_frees;
};
void heap_stats_get(struct heap_stats *st);
#endif
