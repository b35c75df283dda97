"""Uneltele capitolului 02 (TorchDynamo: gărzi, întreruperi ale grafului, recompilări): ce rămâne
în afara celulelor, ca ele să arate funcțiile pe care le citește Dynamo și ce face el cu ele.

- **Catalogul întreruperilor** (`tabel_intreruperi`): ce a găsit `explica` pentru fiecare cauză,
  ca tabel.
- **Costul unei întreruperi** (`cu_intreruperi`, `grafic_intreruperi`,
  `raporteaza_costul_intreruperilor`): eticheta variantelor, graficul timpilor față de numărul de
  întreruperi (tensor mic și mare) și ce înseamnă cifrele, notate și în registrul de cifre.
- **Recompilările pe o secvență de loturi** (`grafic_compilari_pe_secventa`,
  `inregistreaza_secventa`): timpul fiecărui apel, cu vârfurile compilărilor, pentru fiecare
  strategie a formelor, și timpul total al fiecăreia.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib.pyplot as plt

from .. import cifre
from ..concluzii import concluzie_accelerare
from ..inspectie import Explicatie
from ..masurare import Masuratoare, Raport

__all__ = [
    "tabel_intreruperi",
    "cu_intreruperi",
    "grafic_intreruperi",
    "raporteaza_costul_intreruperilor",
    "grafic_compilari_pe_secventa",
    "inregistreaza_secventa",
]


def tabel_intreruperi(explicatii: Mapping[str, Explicatie]) -> None:
    """Tipărește, pentru fiecare cauză (cheia lui `explicatii`), câte grafuri și câte întreruperi
    a găsit `explica` și motivele lor, un rând pe cauză."""
    print(f"{'cauza':<30}{'grafuri':>8}{'întreruperi':>13}   motivul")
    for eticheta, explicatie in explicatii.items():
        motiv = "; ".join(explicatie.categorii) or "—"
        print(f"{eticheta:<30}{cifre.format_numar(explicatie.numar_grafuri):>8}"
              f"{cifre.format_numar(explicatie.numar_intreruperi):>13}   {motiv}")


def cu_intreruperi(n: int) -> str:
    """„0 întreruperi”, „1 întrerupere”, „15 întreruperi”: eticheta unui lanț cu `n` întreruperi."""
    return cifre.cu_substantiv(n, "întrerupere", "întreruperi")


def grafic_intreruperi(
    numere_intreruperi: Sequence[int],
    numar_grafuri: Sequence[int],
    marimi: Mapping[str, int],
    timpi_eager: Mapping[str, Masuratoare],
    timpi_lant: Mapping[str, Sequence[Masuratoare]],
    numar_pasi: int,
):
    """Câte un grafic pentru fiecare mărime de tensor (`marimi`: numele → numărul de elemente
    float32): timpul lanțului compilat (mediana și intervalul 20–80%) față de numărul de
    întreruperi, cu numărul de grafuri găsit de `explica` pe axa de sus și timpul eager ca bandă
    orizontală. Întoarce figura."""
    fig, axe = plt.subplots(1, len(marimi), figsize=(12, 4), squeeze=False)
    for ax, nume in zip(axe[0], marimi):
        mediane = [m.mediana_us for m in timpi_lant[nume]]
        erori = [[m.mediana_us - m.cuantila20_s * 1e6 for m in timpi_lant[nume]],
                 [m.cuantila80_s * 1e6 - m.mediana_us for m in timpi_lant[nume]]]
        ax.errorbar(numere_intreruperi, mediane, yerr=erori, marker="o", capsize=3, label="compilat (mediana, 20–80%)")
        eager = timpi_eager[nume]
        ax.axhline(eager.mediana_us, color="tab:red", linestyle="--", label="eager (fără compilare)")
        ax.axhspan(eager.cuantila20_s * 1e6, eager.cuantila80_s * 1e6, color="tab:red", alpha=0.1)
        ax.set_xticks(numere_intreruperi, [cifre.format_numar(n) for n in numere_intreruperi])
        ax.set_xlabel("întreruperi ale grafului")
        sus = ax.secondary_xaxis("top")  # aceleași poziții, cu numărul de grafuri găsit de explica
        sus.set_xticks(numere_intreruperi, [cifre.format_numar(g) for g in numar_grafuri])
        sus.set_xlabel("grafuri compilate")
        ax.set_ylabel("timp (µs, mediana)")
        ax.set_title(f"{nume}: {cifre.format_octeti(marimi[nume] * 4)}")
        ax.set_ylim(bottom=0)
        ax.legend()
    fig.suptitle(f"Același lanț de {numar_pasi} pași, cu tot mai multe întreruperi")
    plt.tight_layout()
    return fig


def raporteaza_costul_intreruperilor(
    cost_fix_us: float,
    costuri_us: Sequence[float],
    raport_mare: Raport,
    numar_maxim: int,
    are_gpu: bool,
) -> None:
    """Spune ce înseamnă cifrele lanțurilor și le notează în registrul de cifre:

    - pe tensorul mic, costul unei întreruperi (`cost_fix_us`, mediana costurilor de rundă
      `costuri_us`, sortate crescător), sau că nu se desprinde de zgomot, când cel mai mic cost de
      rundă nu e pozitiv;
    - pe tensorul mare, cât de rapid e lanțul fără întreruperi față de cel cu `numar_maxim`
      întreruperi (`raport_mare`).

    Pe procesor (`are_gpu` fals), pune apoi alături cifrele de referință ale capitolului."""
    if costuri_us[0] > 0:
        print(f"Tensor mic: fiecare întrerupere a adăugat în medie {cifre.cu_unitate(cost_fix_us, 'µs')} "
              f"(între {cifre.cu_unitate(costuri_us[0], 'µs')} și {cifre.cu_unitate(costuri_us[-1], 'µs')}, de la o rundă la alta). "
              "Cifra depinde și de procesorul mașinii: e timp de Python, de gărzi și de lansări.")
    else:
        print(f"Tensor mic: costul unei întreruperi nu se desprinde de zgomot pe mașina ta "
              f"(între {cifre.cu_unitate(costuri_us[0], 'µs')} și {cifre.cu_unitate(costuri_us[-1], 'µs')}, de la o rundă la alta).")
    print("Tensor mare: " + concluzie_accelerare(
        raport_mare, "lanțul fără întreruperi", f"cel cu {cu_intreruperi(numar_maxim)}", feminin=False,
        cauza="diferențele dintre variante sunt mai mici decât costurile fixe ale unui apel"))
    cifre.inregistreaza("02.cost_intrerupere_tensor_mic_us", cost_fix_us, "µs", "costul mediu al unei întreruperi, tensor mic",
                        interval=(costuri_us[0], costuri_us[-1]), depinde_de_procesor=True)
    cifre.inregistreaza("02.raport_intreruperi_tensor_mare", raport_mare, "×",
                        f"lanțul fără întreruperi față de lanțul cu {cu_intreruperi(numar_maxim)}, tensor mare")
    if not are_gpu:
        print("\nCifrele de referință ale cursului, pentru comparație:")
        cifre.afiseaza_referinta("02.")


def grafic_compilari_pe_secventa(
    timpi_secventa: Mapping[str, Sequence[float]],
    compilari_secventa: Mapping[str, int],
    secventa_loturi: Sequence[int],
):
    """Timpul fiecărui apel (în secunde, desenat în ms, pe scară logaritmică), câte o linie pentru
    fiecare strategie, cu numărul de compilări și timpul total în legendă; pe axa x, al câtelea
    apel și mărimea lotului lui. Compilările se văd ca vârfuri. Întoarce axa."""
    _, ax = plt.subplots(figsize=(10, 4))
    for nume, timpi in timpi_secventa.items():
        ax.plot(range(1, len(timpi) + 1), [t * 1e3 for t in timpi], marker="o",
                label=f"{nume}: {cifre.cu_substantiv(compilari_secventa[nume], 'compilare', 'compilări')}, "
                      f"total {cifre.format_timp(sum(timpi))}")
    ax.set_yscale("log")
    ax.set_xticks(range(1, len(secventa_loturi) + 1))
    ax.set_xticklabels([f"{cifre.format_numar(i)}\nlot {cifre.format_numar(lot)}" for i, lot in enumerate(secventa_loturi, 1)])
    ax.set_xlabel("apelul (și mărimea lotului)")
    ax.set_ylabel("timpul apelului (ms, scară logaritmică)")
    ax.set_title("Compilările se văd ca vârfuri")
    ax.legend()
    return ax


def inregistreaza_secventa(timpi_secventa: Mapping[str, Sequence[float]], secventa_loturi: Sequence[int]) -> None:
    """Notează în registrul de cifre, pentru fiecare strategie („dynamic=False”, „implicit”,
    „dynamic=True”), timpul total al secvenței de loturi, cu tot cu compilări (cache gol)."""
    for nume in timpi_secventa:
        cifre.inregistreaza(f"02.secventa_{nume.replace('=', '_')}_s", sum(timpi_secventa[nume]), "s",
                            f"secvența de {len(secventa_loturi)} loturi, {nume}: timpul total (cu compilările, cache gol)",
                            depinde_de_procesor=True)
