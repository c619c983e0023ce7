// split-calls lowers GNU `a ?: b` when a call that can reach a checkpoint is in either operand:
// `a` is evaluated once, `b` only when `a` is zero, each call its own site. The run checks the
// values and the number of calls after a restart at each checkpoint.
//
// C3-RUN: after-commit:1
// C3-RUN: after-commit:3
// C3-RUN: after-commit:6

int printf(const char *, ...);

static int calls;

int pick(int x) {
  calls++;
#pragma ccc_checkpoint force
  return x * 3;
}

int main(void) {
  int total = 0;
  for (int i = 0; i < 4; i++) {
    int a = (i % 2) ?: pick(i);
    // CHECK: {{.*}}[[A:__c3_t[0-9]+]] = (i % 2); if (![[A]]) { {{.*}}__c3_fr.h.site = {{[0-9]+}}; __c3_L{{[0-9]+}}: {{.*}}__c3_call_expected = (__c3_function)(pick); [[P:__c3_t[0-9]+]] = pick(i); [[A]] = [[P]]; } int a = [[A]];
    long b = pick(i) ?: 7;
    // CHECK: {{.*}}[[Q:__c3_t[0-9]+]] = pick(i); [[B:__c3_t[0-9]+]] = [[Q]]; if (![[B]]) { [[B]] = 7; } long b = [[B]];
    total += a + (int)b;
    printf("%d %d %ld %d\n", i, a, b, calls);
  }
  printf("total %d calls %d\n", total, calls);
  return 0;
}
