// The rest of the program of reachability.c. Nothing here reaches a checkpoint: its
// local_site is not the one with the pragma.

// WHOLE-LABEL: static int local_site(int n) {
// WHOLE-NEXT: return n + 1;
// WHOLE-NEXT: }
// WHOLE-NEXT: int helper(int n) {
// WHOLE-NEXT: return local_site(n);
// WHOLE-NEXT: }
// WHOLE-NOT: {{.*}}__c3_fr{{.*}}
static int local_site(int n) {
  return n + 1;
}
int helper(int n) {
  return local_site(n);
}
