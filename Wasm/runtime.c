// The small C runtime engine.wasm needs under Embedded Swift: an allocator and the
// libc memory routines. Compiled only for wasm32 (scripts/build-wasm.sh); never native.
#if defined(__wasm__)
#include <stddef.h>
#include <stdint.h>

extern unsigned char __heap_base;

// Size-class free lists (powers of two from 16 B to 32 KiB); larger blocks go to a
// best-fit list (below). Every block has a 16-byte header with its class/size so free() works.
#define NUM_CLASSES 12
#define BIG_UNIT 4096u
#define HEADER 16u
static void *free_lists[NUM_CLASSES];
static uintptr_t heap_top = 0;
static uintptr_t heap_end = 0;

// Blocks over 32 KiB (in 4 KiB units): on a list of free ones in address order; a block taken is split when
// what is left over is big enough, a block freed is merged with free neighbours, and a free
// block at the heap's end goes back to the bump pointer. (Without that, a reload at a million
// items left the old tables' 32 / 24 / 8 MB blocks unusable for the new ones' sizes, and wasm
// memory — which never shrinks — grew by ~60 MB: BENCHMARKS.md, session 16.)
typedef struct big_block { size_t size; struct big_block *next; } big_block;
static big_block *big_free = 0;

static size_t live_bytes = 0, free_bytes = 0;

static int class_for(size_t n) {
    size_t c = 16; int i = 0;
    while (c < n) { c <<= 1; i++; }
    return i;
}

static void *bump(size_t n, size_t align) {
    if (heap_top == 0) { heap_top = (uintptr_t)&__heap_base; heap_end = __builtin_wasm_memory_size(0) * 65536u; }
    uintptr_t p = (heap_top + align - 1) & ~(uintptr_t)(align - 1);
    uintptr_t end = p + n;
    if (end > heap_end) {
        // Memory the page grew itself ahead of a big load (Engine.reserve, its pages touched
        // while the gallery downloads) is used before growing more.
        size_t pages = __builtin_wasm_memory_size(0);
        if (pages < 65536u && pages * 65536u > heap_end) heap_end = pages * 65536u;
    }
    if (end > heap_end) {
        size_t need = (end - heap_end + 65535u) / 65536u;
        size_t grow = need < 256 ? 256 : need; // grow in 16 MiB steps at least
        if (__builtin_wasm_memory_grow(0, grow) == (size_t)-1) {
            if (__builtin_wasm_memory_grow(0, need) == (size_t)-1) return 0;
            grow = need;
        }
        heap_end += grow * 65536u;
    }
    heap_top = end;
    return (void *)p;
}

static size_t big_size(big_block *b) { return ((size_t *)((unsigned char *)b - HEADER))[0]; }

// Block layout: [header: size_t total payload size, size_t class][payload, 16-aligned]
static void *alloc_block(size_t n) {
    if (n == 0) n = 1;
    int cls = class_for(n);
    if (cls < NUM_CLASSES) {
        void *b = free_lists[cls];
        size_t sz = (size_t)16 << cls;
        live_bytes += sz;
        if (b) { free_lists[cls] = *(void **)b; free_bytes -= sz; return b; }
        unsigned char *raw = bump(sz + HEADER, 16);
        if (!raw) return 0;
        ((size_t *)raw)[0] = sz; ((size_t *)raw)[1] = (size_t)cls;
        return raw + HEADER;
    }
    size_t sz = (n + BIG_UNIT - 1) & ~(size_t)(BIG_UNIT - 1);
    // Best fit: the smallest free block that holds sz.
    big_block **best = 0;
    for (big_block **pp = &big_free; *pp; pp = &(*pp)->next) {
        if (big_size(*pp) >= sz && (!best || big_size(*pp) < big_size(*best))) best = pp;
    }
    if (best) {
        unsigned char *p = (unsigned char *)*best;
        size_t have = big_size(*best);
        big_block *rest = (*best)->next;
        if (have - sz >= BIG_UNIT + HEADER) {
            // Split: the tail stays free with a header of its own.
            unsigned char *tail = p + sz + HEADER;
            size_t left = have - sz - HEADER;
            ((size_t *)(tail - HEADER))[0] = left; ((size_t *)(tail - HEADER))[1] = (size_t)NUM_CLASSES;
            ((big_block *)tail)->size = left; ((big_block *)tail)->next = rest;
            *best = (big_block *)tail;
            ((size_t *)(p - HEADER))[0] = sz;
            free_bytes -= sz + HEADER;
            have = sz;
        } else {
            *best = rest;
            free_bytes -= have;
        }
        live_bytes += have;
        return p;
    }
    unsigned char *raw = bump(sz + HEADER, 16);
    if (!raw) return 0;
    live_bytes += sz;
    ((size_t *)raw)[0] = sz; ((size_t *)raw)[1] = (size_t)NUM_CLASSES;
    return raw + HEADER;
}

#define ALIGNED_MARK ((size_t)0xA11A11)
void free(void *p) {
    if (!p) return;
    unsigned char *raw = (unsigned char *)p - HEADER;
    size_t cls = ((size_t *)raw)[1];
    if (cls == ALIGNED_MARK) { free((unsigned char *)p - ((size_t *)raw)[0]); return; }
    size_t sz = ((size_t *)raw)[0];
    live_bytes -= sz; free_bytes += sz;
    if (cls < NUM_CLASSES) { *(void **)p = free_lists[cls]; free_lists[cls] = p; return; }
    // A big block: into the address-ordered list, merged with the free blocks either side.
    big_block *b = (big_block *)p;
    big_block **pp = &big_free, *prev = 0;
    while (*pp && (unsigned char *)*pp < (unsigned char *)p) { prev = *pp; pp = &(*pp)->next; }
    b->next = *pp;
    *pp = b;
    if (b->next && (unsigned char *)p + sz + HEADER == (unsigned char *)b->next) {
        sz += HEADER + big_size(b->next);
        free_bytes += HEADER;
        b->next = b->next->next;
        ((size_t *)raw)[0] = sz;
    }
    if (prev && (unsigned char *)prev + big_size(prev) == raw) {
        size_t merged = big_size(prev) + HEADER + sz;
        ((size_t *)((unsigned char *)prev - HEADER))[0] = merged;
        prev->next = b->next;
        free_bytes += HEADER;
        b = prev; raw = (unsigned char *)prev - HEADER; sz = merged;
    }
    b->size = sz;
    if ((uintptr_t)((unsigned char *)b + sz) == heap_top) {
        // The heap's last block: back to the bump pointer (small blocks may take it too).
        big_block **q = &big_free;
        while (*q != b) q = &(*q)->next;
        *q = b->next;
        free_bytes -= sz;
        heap_top = (uintptr_t)raw;
    }
}

int posix_memalign(void **out, size_t align, size_t n) {
    if (align <= 16) { void *p = alloc_block(n); if (!p) return 12; *out = p; return 0; }
    // Over-allocate and leave a forwarding header just before the aligned pointer.
    unsigned char *raw = alloc_block(n + align + HEADER);
    if (!raw) return 12;
    uintptr_t a = ((uintptr_t)raw + HEADER + align - 1) & ~(uintptr_t)(align - 1);
    ((size_t *)(a - HEADER))[0] = (size_t)(a - (uintptr_t)raw);
    ((size_t *)(a - HEADER))[1] = ALIGNED_MARK;
    *out = (void *)a;
    return 0;
}

// [heap in use by the allocator (bump pointer from the heap base), bytes handed out, bytes free on its lists,
//  the heap's top: the address from which memory is not the allocator's yet (Engine.reserve touches it)]
static double heap_stats[4];
__attribute__((export_name("engine_heap_stats")))
double *engine_heap_stats(void) {
    heap_stats[0] = heap_top ? (double)(heap_top - (uintptr_t)&__heap_base) : 0;
    heap_stats[1] = (double)live_bytes;
    heap_stats[2] = (double)free_bytes;
    heap_stats[3] = (double)(heap_top ? heap_top : (uintptr_t)&__heap_base);
    return heap_stats;
}

// The free big blocks, for a look at fragmentation (scripts/bench-reload.mjs with BLOCKS=1):
// [count, then per block (128 at most): its offset from the heap base, its size]
static double heap_blocks[258];
__attribute__((export_name("engine_heap_blocks")))
double *engine_heap_blocks(void) {
    int k = 0;
    for (big_block *b = big_free; b && k < 128; b = b->next, k++) {
        heap_blocks[1 + 2 * k] = (double)((uintptr_t)b - (uintptr_t)&__heap_base);
        heap_blocks[2 + 2 * k] = (double)big_size(b);
    }
    heap_blocks[0] = k;
    return heap_blocks;
}

void *malloc(size_t n) { return alloc_block(n); }

// Built with -mbulk-memory: the builtins lower to wasm's memory.copy / memory.fill
// instructions (which also handle overlap), not to calls back into these functions.
void *memcpy(void *restrict d, const void *restrict s, size_t n) { __builtin_memcpy(d, s, n); return d; }
void *memmove(void *d, const void *s, size_t n) { __builtin_memmove(d, s, n); return d; }
void *memset(void *d, int c, size_t n) { __builtin_memset(d, c, n); return d; }
int memcmp(const void *a, const void *b, size_t n) {
    const unsigned char *x = a, *y = b;
    for (; n; n--, x++, y++) if (*x != *y) return *x - *y;
    return 0;
}
size_t strlen(const char *s) { size_t n = 0; while (s[n]) n++; return n; }

// Hash seeding only; the engine itself never draws random numbers. A fixed
// xorshift stream keeps engine.wasm deterministic run to run.
static uint64_t seed_state = 0x9E3779B97F4A7C15ull;
void arc4random_buf(void *buf, size_t n) {
    unsigned char *b = buf;
    for (size_t i = 0; i < n; i++) {
        seed_state ^= seed_state << 13; seed_state ^= seed_state >> 7; seed_state ^= seed_state << 17;
        b[i] = (unsigned char)seed_state;
    }
}
#endif
