/* envconf.c - a population model configured through environment variables.
 *
 *   POP_LABEL   name printed in every report (default "population")
 *   POP_YEARS   years to simulate (default 60)
 *   POP_GROWTH  yearly growth in percent (default 3.5)
 *
 * The settings are looked up once and kept as given by getenv().
 */
#include <stdio.h>
#include <stdlib.h>

struct settings {
  const char *label;
  const char *units;
  int years;
  double growth;
};

static struct settings settings;

static void load_settings(void) {
  const char *years = getenv("POP_YEARS");
  const char *growth = getenv("POP_GROWTH");
  settings.label = getenv("POP_LABEL");
  if (settings.label == NULL) settings.label = "population";
  settings.units = getenv("POP_UNITS");
  if (settings.units == NULL) settings.units = "head";
  settings.years = years ? atoi(years) : 60;
  settings.growth = growth ? atof(growth) : 3.5;
}

int main(void) {
  load_settings();
  double prey = 1000.0, predators = 40.0;
  for (int year = 1; year <= settings.years; year++) {
    double born = prey * settings.growth / 100.0;
    double eaten = prey * predators * 0.0004;
    prey += born - eaten;
    predators += predators * (0.00005 * prey - 0.02);
    if (prey < 0) prey = 0;
    if (year % 5 == 0) {
      printf("%s, year %3d: %10.3f prey, %8.3f predators (%s)\n", settings.label, year, prey,
             predators, settings.units);
#pragma ccc_checkpoint force
    }
  }
  printf("%s: done after %d years\n", settings.label, settings.years);
  return 0;
}
