// GNU `a ?: b` with a call that can reach a checkpoint in either operand.
int step(int);

int f(int n) {
  int c = step(n) ?: n;
  // CHECK: {{^.*[/]}}elvis.c:[[@LINE-1]]:11: error: a call that can reach a checkpoint inside 'a ?: b'{{$}}
  // CHECK-NEXT: {{^}}  int c = step(n) ?: n;{{$}}
  // CHECK-NEXT: {{^}}          ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}elvis.c:[[@LINE-4]]:11: note: hint: write the condition out: 't = a; if (!t) t = b;'{{$}}
  c = n ?: step(c);
  // CHECK-NEXT: {{^.*[/]}}elvis.c:[[@LINE-1]]:7: error: a call that can reach a checkpoint inside 'a ?: b'{{$}}
  // CHECK-NEXT: {{^}}  c = n ?: step(c);{{$}}
  // CHECK-NEXT: {{^}}      ^{{$}}
  // CHECK-NEXT: {{^.*[/]}}elvis.c:[[@LINE-4]]:7: note: hint: write the condition out: 't = a; if (!t) t = b;'{{$}}
  // CHECK-NEXT: 2 errors generated.
  return c;
}

// Without a reaching call it is fine.
int g(int n) {
  return n ?: 1;
}
