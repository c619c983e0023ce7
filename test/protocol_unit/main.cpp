// The protocol unit tests' main: MPI is started and ended through c3's wrappers, as a program
// built by c3cc would, so the tests run against an initialized protocol layer.
#include <mpi.h>

#include <cstring>

#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "messages/payload_prepost.hpp"
#include "unit_support.hpp"

namespace {

// Each test starts as in a fresh job: no rank asked another to split every message
// (messages/payload_prepost.hpp), whatever the tests before it posted.
struct ForgetAsks : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseEnded(const Catch::TestCaseStats &) override {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized) return;
    c3::mpi::prepost::forget_asks();
    // No rank's next test sends before every ask of this one is taken back.
    PMPI_Barrier(MPI_COMM_WORLD);
  }
};
CATCH_REGISTER_LISTENER(ForgetAsks)

}  // namespace

int main(int argc, char **argv) {
  constexpr char kChildFlag[] = "--c3-child=";
  if (argc == 2 && std::strncmp(argv[1], kChildFlag, sizeof kChildFlag - 1) == 0)
    return c3::mpi::test::run_child_scenario(argv[1] + sizeof kChildFlag - 1);

  MPI_Init(&argc, &argv);
  Catch::Session session;
  int failed = session.run(argc, argv);
  // Every rank reports the worst result, so mpiexec's exit code is the job's.
  int worst = 0;
  PMPI_Allreduce(&failed, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
