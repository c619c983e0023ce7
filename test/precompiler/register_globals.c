// register-globals: every writable global of the file is described once in one table placed in
// section "c3_globals" at the end of the file; every function static by a descriptor right after
// its declaration (in instrumented functions and others). const objects never change and are
// not saved; declarations without a definition belong to another file. The run test checks that
// globals and statics keep their values across a restart.
//
// C3-RUN: after-commit:1
// C3-RUN: after-commit:2

int printf(const char *, ...);

extern int declared_only;
extern int defined_later;
int counter;
int counter;
static double ratio = 0.5;
const int limit = 10;
const char *const names[] = {"a", "b"};
const char *messages[] = {"x", "y"};
struct point { int x, y; } origin = {1, 2}, corner;
int defined_later = 3;
int matrix[4][4];
char *last_message;

// CHECK-LABEL: int count(void) {
// CHECK-NEXT: static int calls; static const struct __c3_global __c3_static_1 __attribute__((section("c3_globals"), used, aligned(8))) = {(void *)&calls, 4ul, "count.calls"};
// CHECK-NEXT: static const int fixed = 4;
// CHECK-NEXT: static int a = 1, b; static const struct __c3_global __c3_static_2 __attribute__((section("c3_globals"), used, aligned(8))) = {(void *)&a, 4ul, "count.a"}; static const struct __c3_global __c3_static_3 __attribute__((section("c3_globals"), used, aligned(8))) = {(void *)&b, 4ul, "count.b"};
// CHECK-NEXT: {
// A static in an inner block is described in that block, where its name means it.
// CHECK-NEXT: static int calls = 100; static const struct __c3_global __c3_static_4 __attribute__((section("c3_globals"), used, aligned(8))) = {(void *)&calls, 4ul, "count.calls"};
// CHECK-NEXT: calls++;
// CHECK-NEXT: b = calls;
// CHECK-NEXT: }
// CHECK-NEXT: return ++calls + fixed + a + b;
int count(void) {
  static int calls;
  static const int fixed = 4;
  static int a = 1, b;
  {
    static int calls = 100;
    calls++;
    b = calls;
  }
  return ++calls + fixed + a + b;
}

// Statics stay out of the frame record of an instrumented function.
// CHECK-LABEL: void record(int n) { struct __c3_frame_record { struct __c3_frame h; } __c3_fr; {{.*}}
// CHECK-NEXT: static int total = 0; static const struct __c3_global __c3_static_5 __attribute__((section("c3_globals"), used, aligned(8))) = {(void *)&total, 4ul, "record.total"};
// CHECK-NEXT: total += n;
void record(int n) {
  static int total = 0;
  total += n;
  counter += total;
  matrix[n % 4][n % 3] += n;
  last_message = (char *)messages[n & 1];
#pragma ccc_checkpoint force
  ratio *= 2;
}

// CHECK-LABEL: static const struct __c3_global __c3_file_globals[] __attribute__((section("c3_globals"), used, aligned(8))) = {{[{][{]}}(void *)&counter, 4ul, "counter"}, {(void *)&ratio, 8ul, "ratio"}, {(void *)&messages, 16ul, "messages"}, {(void *)&origin, 8ul, "origin"}, {(void *)&corner, 8ul, "corner"}, {(void *)&defined_later, 4ul, "defined_later"}, {(void *)&matrix, 64ul, "matrix"}, {(void *)&last_message, 8ul, "last_message"}};
// CHECK-NOT: {{.*}}__c3_global{{.*}}
int main(void) {
  for (int i = 1; i <= 3; i++) {
    record(i);
    printf("%d %d %g %s %d\n", count(), counter, ratio, last_message, matrix[i % 4][i % 3]);
  }
  corner.x = origin.y + defined_later + limit;
  printf("%d %s %s\n", corner.x, names[1], messages[0]);
  return 0;
}
