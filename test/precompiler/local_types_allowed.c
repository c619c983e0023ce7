// Types declared inside an instrumented function stay where they are when no variable of the
// frame record needs them: an enum used for its constants, a struct only measured by sizeof.
// (diagnostics/local_type.c: a variable of such a type is an error.)
//
// C3-RUN: after-commit:1

int printf(const char *, ...);

// CHECK-LABEL: int __c3_user_main(void) { struct __c3_frame_main { struct __c3_frame h; int total; int i; } __c3_fr; {{.*}}
// CHECK-NEXT: enum { ROUNDS = 4, STEP = 3 };
// CHECK-NEXT: struct sample { char bytes[12]; };
// CHECK-NEXT: int total = (int)sizeof(struct sample);
int main(void) {
  enum { ROUNDS = 4, STEP = 3 };
  struct sample { char bytes[12]; };
  int total = (int)sizeof(struct sample);
  for (int i = 0; i < ROUNDS; i++) {
    total += STEP;
    if (i == 1) {
#pragma ccc_checkpoint force
    }
  }
  printf("%d\n", total);
  return 0;
}
