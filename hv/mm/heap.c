/* Kernel heap. Each page kmalloc uses starts with a header, so kfree finds it
 * by rounding the pointer down: slab pages hold objects of one size class
 * with a per-page free list; big allocations are page runs with the data
 * after the header. */
#include "mm/heap.h"
#include "mm/pmm.h"
#include "spinlock.h"
#include "log.h"
#include "lib/string.h"

#define HEAP_HDR          64u
#define HEAP_MAGIC_SLAB   0x534c4142u   /* "SLAB" */
#define HEAP_MAGIC_BIG    0x42494721u   /* "BIG!" */
#define HEAP_MAGIC_DEAD   0x44454144u   /* freed big allocation */
#define HEAP_POISON       0xf4eef4eef4eef4eeULL   /* second word of a free object */

struct heap_page {
	uint32_t magic;
	uint16_t cls, inuse;
	uint64_t npages;                  /* big: pages in the run */
	struct heap_obj *free;            /* slab: free objects in this page */
	struct heap_page *next, *prev;    /* slab: pages with free objects */
};
_Static_assert(sizeof(struct heap_page) <= HEAP_HDR, "header fits its slot");

struct heap_obj { struct heap_obj *next; uint64_t poison; };

/* (4096 - 64) / n rounded to 16: 252, 126, 63, 31, 15, 7, 4 and 2 per page. */
static const uint16_t class_size[] = { 16, 32, 64, 128, 256, 512, 1008, 2016 };
#define NR_CLASSES ARRAY_SIZE(class_size)

static struct {
	spinlock_t lock;
	struct heap_page *partial[NR_CLASSES];
	struct heap_stats st;
} heap = { .lock = SPINLOCK_INIT };

static unsigned class_of(size_t size)
{
	unsigned c = 0;

	while (c < NR_CLASSES && class_size[c] < size)
		c++;
	return c;
}

static unsigned slab_capacity(unsigned c)
{
	return (unsigned)((PAGE_SIZE - HEAP_HDR) / class_size[c]);
}

static void partial_push(struct heap_page *pg)
{
	pg->prev = NULL;
	pg->next = heap.partial[pg->cls];
	if (pg->next)
		pg->next->prev = pg;
	heap.partial[pg->cls] = pg;
}

static void partial_unlink(struct heap_page *pg)
{
	if (pg->prev)
		pg->prev->next = pg->next;
	else
		heap.partial[pg->cls] = pg->next;
	if (pg->next)
		pg->next->prev = pg->prev;
	pg->next = pg->prev = NULL;
}

/* A fresh slab page with every object on its free list. */
static struct heap_page *slab_new(unsigned c)
{
	paddr_t pa = pmm_alloc_page();
	struct heap_page *pg = (struct heap_page *)(uintptr_t)pa;
	uint8_t *obj;

	if (!pa)
		return NULL;
	*pg = (struct heap_page){ .magic = HEAP_MAGIC_SLAB, .cls = (uint16_t)c };
	for (unsigned i = slab_capacity(c); i-- > 0;) {
		obj = (uint8_t *)pg + HEAP_HDR + (size_t)i * class_size[c];
		*(struct heap_obj *)obj = (struct heap_obj){ pg->free, HEAP_POISON };
		pg->free = (struct heap_obj *)obj;
	}
	heap.st.slab_pages++;
	partial_push(pg);
	return pg;
}

static void *slab_alloc(unsigned c)
{
	struct heap_page *pg = heap.partial[c];
	struct heap_obj *o;

	if (!pg && !(pg = slab_new(c)))
		return NULL;
	o = pg->free;
	pg->free = o->next;
	pg->inuse++;
	if (!pg->free)
		partial_unlink(pg);
	o->poison = 0;
	return o;
}

static void *big_alloc(size_t size)
{
	uint64_t n = (size + HEAP_HDR + PAGE_SIZE - 1) / PAGE_SIZE;
	paddr_t pa = size > (1ULL << 40) ? 0 : pmm_alloc_pages(n, 0, 0);
	struct heap_page *pg = (struct heap_page *)(uintptr_t)pa;

	if (!pa)
		return NULL;
	*pg = (struct heap_page){ .magic = HEAP_MAGIC_BIG, .npages = n };
	heap.st.big_pages += n;
	return (uint8_t *)pg + HEAP_HDR;
}

void *kmalloc(size_t size)
{
	unsigned c = class_of(size);
	void *p;

	if (!size)
		return NULL;
	spin_lock(&heap.lock);
	p = c < NR_CLASSES ? slab_alloc(c) : big_alloc(size);
	if (p)
		heap.st.live_objects++;
	spin_unlock(&heap.lock);
	return p;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

void *kcalloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return kzalloc(n * size);
}

/* The header of the page p belongs to, if p is a live-looking heap pointer. */
static struct heap_page *page_of(const void *p)
{
	struct heap_page *pg = (struct heap_page *)ALIGN_DOWN((uintptr_t)p, PAGE_SIZE);
	uintptr_t off = (uintptr_t)p - (uintptr_t)pg;

	if (off < HEAP_HDR)
		return NULL;
	if (pg->magic == HEAP_MAGIC_BIG)
		return off == HEAP_HDR ? pg : NULL;
	if (pg->magic != HEAP_MAGIC_SLAB || pg->cls >= NR_CLASSES)
		return NULL;
	off -= HEAP_HDR;
	if (off % class_size[pg->cls] || off / class_size[pg->cls] >= slab_capacity(pg->cls))
		return NULL;
	return pg;
}

static bool slab_is_free(const struct heap_page *pg, const struct heap_obj *o)
{
	if (o->poison != HEAP_POISON)
		return false;
	for (const struct heap_obj *f = pg->free; f; f = f->next)
		if (f == o)
			return true;
	return false;
}

/* Returns false for a double free. */
static bool slab_free(struct heap_page *pg, struct heap_obj *o)
{
	unsigned c = pg->cls;

	if (slab_is_free(pg, o))
		return false;
	*o = (struct heap_obj){ pg->free, HEAP_POISON };
	if (!pg->free)
		partial_push(pg);
	pg->free = o;
	pg->inuse--;
	/* Give an empty page back unless it is the last one with room. */
	if (!pg->inuse && (heap.partial[c] != pg || pg->next)) {
		partial_unlink(pg);
		pg->magic = 0;
		heap.st.slab_pages--;
		pmm_free_pages((paddr_t)(uintptr_t)pg, 1);
	}
	return true;
}

static void big_free(struct heap_page *pg)
{
	uint64_t n = pg->npages;

	pg->magic = HEAP_MAGIC_DEAD;
	heap.st.big_pages -= n;
	pmm_free_pages((paddr_t)(uintptr_t)pg, n);
}

void kfree(void *p)
{
	struct heap_page *pg;
	bool ok = true;

	if (!p)
		return;
	spin_lock(&heap.lock);
	pg = page_of(p);
	if (!pg)
		ok = false;
	else if (pg->magic == HEAP_MAGIC_BIG)
		big_free(pg);
	else
		ok = slab_free(pg, p);
	if (ok)
		heap.st.live_objects--;
	else
		heap.st.bad_frees++;
	spin_unlock(&heap.lock);
	if (!ok)
		pr_err("heap: kfree(%p): not a live kmalloc pointer (double free?); ignored\n", p);
}

size_t ksize(const void *p)
{
	const struct heap_page *pg = p ? page_of(p) : NULL;

	if (!pg)
		return 0;
	if (pg->magic == HEAP_MAGIC_BIG)
		return pg->npages * PAGE_SIZE - HEAP_HDR;
	return class_size[pg->cls];
}

void heap_stats_get(struct heap_stats *st)
{
	spin_lock(&heap.lock);
	*st = heap.st;
	spin_unlock(&heap.lock);
}
