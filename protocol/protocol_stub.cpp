// Placeholder translation unit until the PMPI protocol layer lands (MPI issue).
namespace c3::protocol {
int linked_marker = 0;
}
