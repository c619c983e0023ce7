#ifndef SQUARES_H
#define SQUARES_H
long square(int x);
#endif
