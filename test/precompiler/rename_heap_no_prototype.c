// rename-heap on declarations without a prototype, as autoconf's AC_CHECK_FUNCS probes write
// them (`char strdup ();`, then `strdup ()` called without arguments): c3's function is called
// through a pointer of the declared type, so the probe compiles and links as with mpicc and
// configure finds the function. With a prototype the name is replaced as it is.
//
// C3-CFLAGS: -Wno-incompatible-library-redeclaration

char strdup ();
char malloc ();
void free(void *);

// Compiled alone, the program's own declarations name functions of other files: the calls are
// call sites (split out, through the same pointers).
// CHECK-LABEL: int probe(void) { struct __c3_frame_probe {{.*}}
// CHECK-NEXT: {{.*}} = ((char (*)())__c3_strdup)(); {{.*}} = ((char (*)())__c3_malloc)(); {{.*}}
int probe(void) {
  return strdup () + malloc ();
}

// CHECK-LABEL: void release(void *p) {
// CHECK-NEXT: __c3_free(p);
void release(void *p) {
  free(p);
}
