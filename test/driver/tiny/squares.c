#include "squares.h"

long square(int x) { return (long)x * x; }
