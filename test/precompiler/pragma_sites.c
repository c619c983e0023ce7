// pragma-sites: every `#pragma ccc_checkpoint [force]` line becomes a call of the runtime's
// checkpoint site that names the pragma's file and line; `force` is the first argument. Stage 1
// alone (--stop-after-pragmas) and the whole pipeline, where each site also gets a number.
//
// C3-VARIANT: PRAGMA --stop-after-pragmas
// C3-VARIANT: CHECK

void work(int);

// PRAGMA-LABEL: void sites(int n) {
// CHECK-LABEL: void sites(int n) { struct __c3_frame_sites {{.*}}
void sites(int n) {
#pragma ccc_checkpoint
  // PRAGMA-NEXT: {{^}}__c3_checkpoint_site(0, "pragma_sites.c:[[@LINE-1]]");{{$}}
  // CHECK: {{^}}__builtin_memcpy(&__c3_fr.n, &n, sizeof __c3_fr.n); __c3_fr.h.site = 1; __c3_L1: n = __c3_fr.n; __c3_checkpoint_site(0, "pragma_sites.c:[[@LINE-2]]");{{$}}
  work(n);
#pragma ccc_checkpoint force
  // PRAGMA: {{^}}__c3_checkpoint_site(1, "pragma_sites.c:[[@LINE-1]]");{{$}}
  // CHECK: {{^}}__builtin_memcpy(&__c3_fr.n, &n, sizeof __c3_fr.n); __c3_fr.h.site = 3; __c3_L3: n = __c3_fr.n; __c3_checkpoint_site(1, "pragma_sites.c:[[@LINE-2]]");{{$}}
  switch (n) {
  case 1:
#pragma ccc_checkpoint
    // Right after a case label: the site is the case's statement, braced once it has a label.
    // PRAGMA: {{^}}  case 1:{{$}}
    // PRAGMA-NEXT: {{^}}__c3_checkpoint_site(0, "pragma_sites.c:[[@LINE-3]]");{{$}}
    // CHECK: {{^}}{ __builtin_memcpy(&__c3_fr.n, &n, sizeof __c3_fr.n); __c3_fr.h.site = 4; __c3_L4: n = __c3_fr.n; __c3_checkpoint_site(0, "pragma_sites.c:[[@LINE-4]]"); }{{$}}
    work(1);
    break;
  }
again:
#pragma ccc_checkpoint
  // PRAGMA: {{^}}again:{{$}}
  // PRAGMA-NEXT: {{^}}__c3_checkpoint_site(0, "pragma_sites.c:[[@LINE-2]]");{{$}}
  // CHECK: {{^}}again:{{$}}
  // CHECK-NEXT: {{^}}{ __builtin_memcpy(&__c3_fr.n, &n, sizeof __c3_fr.n); __c3_fr.h.site = 6; __c3_L6: n = __c3_fr.n; __c3_checkpoint_site(0, "pragma_sites.c:[[@LINE-4]]"); }{{$}}
  if (n-- > 0) goto again;
  if (n) {
    {
#pragma ccc_checkpoint force
      // PRAGMA: {{^}}__c3_checkpoint_site(1, "pragma_sites.c:[[@LINE-1]]");{{$}}
      // CHECK: {{^}}__builtin_memcpy(&__c3_fr.n, &n, sizeof __c3_fr.n); __c3_fr.h.site = 7; __c3_L7: n = __c3_fr.n; __c3_checkpoint_site(1, "pragma_sites.c:[[@LINE-2]]");{{$}}
    }
  }
  // No pragma text survives.
  // PRAGMA-NOT: {{.*}}ccc_checkpoint{{.*}}
  // CHECK-NOT: {{.*}}ccc_checkpoint{{.*}}
}

// A site in a file included by another is named after that file and its own line.
#include "Inputs/pragma_in_header.h"
// PRAGMA-LABEL: void from_header(void) {
// PRAGMA-NEXT: {{^}}__c3_checkpoint_site(0, "pragma_in_header.h:3");{{$}}
// CHECK-LABEL: void from_header(void) { struct __c3_frame_from_header {{.*}}
// CHECK-NEXT: {{^}}__c3_fr.h.site = 1; __c3_L1: __c3_checkpoint_site(0, "pragma_in_header.h:3");{{$}}

// Stage 1 changes nothing else.
// PRAGMA-NOT: {{.*}}__c3_fr{{.*}}
