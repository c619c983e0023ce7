// rename-heap: the program's malloc family is renamed to the runtime's arena allocator wherever
// the program names it, in calls, function pointers and initializers, in every function
// (instrumented or not). Struct members that happen to be called malloc/free are left alone.
// The run test keeps a heap list across a checkpoint and a restart.
//
// C3-RUN: after-commit:1

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct allocator {
  void *(*malloc)(size_t);
  void (*free)(void *);
};
struct node {
  struct node *next;
  char *name;
};

// CHECK-LABEL: static void *(*alloc_fn)(size_t) = __c3_malloc;
// CHECK-NEXT: static struct allocator table = {__c3_malloc, __c3_free};
static void *(*alloc_fn)(size_t) = malloc;
static struct allocator table = {malloc, free};

// An uninstrumented function is renamed too.
// CHECK-LABEL: static struct node *push(struct node *list, const char *name) {
// CHECK-NEXT: struct node *node = __c3_calloc(1, sizeof *node);
// CHECK-NEXT: node->name = __c3_strdup(name);
// CHECK-NEXT: node->next = list;
// CHECK-NEXT: return node;
static struct node *push(struct node *list, const char *name) {
  struct node *node = calloc(1, sizeof *node);
  node->name = strdup(name);
  node->next = list;
  return node;
}

// CHECK-LABEL: int __c3_user_main(void) {{.*}}
// CHECK-NEXT: struct node *list = push(push(push(((void*)0), "three"), "two"), "one");
// CHECK-NEXT: char *text = __c3_malloc(16);
// CHECK-NEXT: text = __c3_realloc(text, 64);
// CHECK-NEXT: char *copy = __c3_strndup("abcdef", 3);
// CHECK-NEXT: void *spare;
// CHECK-NEXT: if (__c3_posix_memalign(&__c3_fr.aligned, 64, 128) != 0) { __c3_top = __c3_fr.h.prev; return 1; }
// CHECK-NEXT: void *other = __c3_aligned_alloc(64, 64);
// CHECK-NEXT: size_t usable = __c3_malloc_usable_size(text);
// CHECK-NEXT: {{.*}}__c3_fr.h.site = {{[0-9]+}}; __c3_L{{[0-9]+}}: {{.*}}__c3_call_expected = (__c3_function)(table.malloc); spare = table.malloc(8);
// CHECK-NEXT: {{.*}}__c3_fr.h.site = {{[0-9]+}}; __c3_L{{[0-9]+}}: {{.*}}__c3_call_expected = (__c3_function)(table.free); table.free(spare);
// CHECK-NEXT: {{.*}}__c3_fr.h.site = {{[0-9]+}}; __c3_L{{[0-9]+}}: {{.*}}__c3_call_expected = (__c3_function)(alloc_fn); spare = alloc_fn(8);
// CHECK-NEXT: __c3_free(spare);
// CHECK-NOT: {{.*[^_]}}malloc({{.*}}
// CHECK-NOT: {{.*[ (]}}free({{.*}}
int main(void) {
  struct node *list = push(push(push(NULL, "three"), "two"), "one");
  char *text = malloc(16);
  text = realloc(text, 64);
  char *copy = strndup("abcdef", 3);
  void *aligned, *spare;
  if (posix_memalign(&aligned, 64, 128) != 0) return 1;
  void *other = aligned_alloc(64, 64);
  size_t usable = malloc_usable_size(text);
  spare = table.malloc(8);
  table.free(spare);
  spare = alloc_fn(8);
  free(spare);
  strcpy(text, "before");
  printf("%s %s %s\n", text, copy, usable >= 64 ? "usable" : "too small");
#pragma ccc_checkpoint force
  strcat(text, " and after");
  for (struct node *n = list; n; n = n->next) printf("%s ", n->name);
  printf("%s %d %d\n", text, (int)((unsigned long)aligned % 64), (int)((unsigned long)other % 64));
  while (list) {
    struct node *next = list->next;
    free(list->name);
    free(list);
    list = next;
  }
  free(text);
  free(copy);
  free(aligned);
  free(other);
  return 0;
}
