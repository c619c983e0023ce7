/* Included by pragma_sites.c: a checkpoint site in a header. */
void from_header(void) {
#pragma ccc_checkpoint
}
