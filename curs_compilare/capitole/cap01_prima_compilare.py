"""Uneltele capitolului 01 (primul `torch.compile`): ce rămâne în afara celulelor, ca ele să
arate modelul, compilarea și măsurătoarea.

- **Cifrele inferenței și ale antrenării** (`inregistreaza_inferenta`, `inregistreaza_antrenarea`,
  `inregistreaza_ocuparea`): primul apel, medianele, accelerarea și, pe un GPU, cât lucrează
  GPU-ul într-un pas, notate în registrul de cifre.
- **Ce înseamnă măsurătorile** (`raporteaza_amortizarea`, `explica_incetinirea`): după câți pași
  se amortizează compilarea și, doar când compilarea a încetinit una dintre variante, de ce.
- **Graficul** (`grafic_inferenta_si_antrenare`): eager și compilat, la inferență și la antrenare.
- **Articolul și cifrele tale** (`in_cuvinte`, `referinta_accelerarilor`): accelerarea în cuvinte
  și, pe procesor, accelerările de referință ale cursului.
"""

from __future__ import annotations

from typing import Mapping

import matplotlib.pyplot as plt

from .. import cifre, grafice
from ..concluzii import cauza_lentorii
from ..masurare import Comparatie, OcupareGPU, Raport

__all__ = [
    "inregistreaza_inferenta",
    "inregistreaza_antrenarea",
    "raporteaza_amortizarea",
    "grafic_inferenta_si_antrenare",
    "explica_incetinirea",
    "inregistreaza_ocuparea",
    "explica_lipsa_ocuparii",
    "in_cuvinte",
    "referinta_accelerarilor",
]


def inregistreaza_inferenta(comparatie: Comparatie, prima_s: float) -> None:
    """Notează în registrul de cifre inferența lui `ReteaTransformer` (evaluarea unui lot):
    primul apel compilat (`prima_s`, în secunde, cache gol), medianele variantelor „eager” și
    „compilat” din `comparatie` și accelerarea."""
    cifre.inregistreaza("01.inferenta_prima_apelare_s", prima_s, "s",
                        "ReteaTransformer, inferență (evaluarea unui lot): primul apel compilat (cache gol)", depinde_de_procesor=True)
    cifre.inregistreaza("01.inferenta_eager_ms", comparatie["eager"], "ms", "ReteaTransformer, inferență (evaluarea unui lot) eager, mediana")
    cifre.inregistreaza("01.inferenta_compilata_ms", comparatie["compilat"], "ms", "ReteaTransformer, inferență (evaluarea unui lot) compilată, mediana")
    cifre.inregistreaza("01.inferenta_accelerare", comparatie.accelerare("eager", "compilat"), "×",
                        "ReteaTransformer, inferență (evaluarea unui lot): accelerarea după compilare")


def inregistreaza_antrenarea(comparatie: Comparatie, prima_s: float) -> None:
    """Notează în registrul de cifre pasul de antrenare al lui `ReteaTransformer`: primul pas
    compilat (`prima_s`, în secunde, cache gol), medianele variantelor „eager” și „compilat” din
    `comparatie` și accelerarea."""
    cifre.inregistreaza("01.antrenare_prima_apelare_s", prima_s, "s",
                        "ReteaTransformer, antrenare: primul pas compilat (cache gol)", depinde_de_procesor=True)
    cifre.inregistreaza("01.antrenare_eager_ms", comparatie["eager"], "ms", "ReteaTransformer, pas de antrenare eager, mediana")
    cifre.inregistreaza("01.antrenare_compilata_ms", comparatie["compilat"], "ms", "ReteaTransformer, pas de antrenare compilat, mediana")
    cifre.inregistreaza("01.antrenare_accelerare", comparatie.accelerare("eager", "compilat"), "×",
                        "ReteaTransformer, antrenare: accelerarea după compilare")


def raporteaza_amortizarea(accelerare: Raport, prag_pasi: int | None) -> None:
    """Spune după câți pași de antrenare se amortizează compilarea (`prag_pasi`, din
    `prag_rentabilitate`): nu se poate spune, când diferența dintre pași (`accelerare`) e în limita
    zgomotului; nu se amortizează, când pasul compilat nu e mai rapid; altfel, după câți pași."""
    if accelerare.in_zgomot:
        print("Diferența dintre pași e în limita zgomotului: nu poți spune după câți pași s-ar amortiza compilarea.")
    elif prag_pasi is None:
        print("Pe mașina ta, pasul compilat nu e mai rapid: compilarea nu se amortizează.")
    else:
        print(f"Compilarea se amortizează după {cifre.cu_substantiv(prag_pasi, 'pas', 'pași')} de antrenare.")


def grafic_inferenta_si_antrenare(comparatie_inferenta: Comparatie, comparatie_antrenare: Comparatie):
    """Două grafice alăturate, eager și compilat: evaluarea unui lot (inferența) și pasul de
    antrenare. Întoarce figura."""
    fig, (ax_inferenta, ax_antrenare) = plt.subplots(1, 2, figsize=(12, 3.2))
    grafice.grafic_variante(
        {"eager": comparatie_inferenta["eager"], "compilat": comparatie_inferenta["compilat"]},
        titlu="Inferență: evaluarea unui lot", ax=ax_inferenta,
    )
    grafice.grafic_variante(
        {"eager": comparatie_antrenare["eager"], "compilat": comparatie_antrenare["compilat"]},
        titlu="Pas de antrenare", ax=ax_antrenare,
    )
    plt.tight_layout()
    return fig


def explica_incetinirea(
    accelerare_inferenta: Raport,
    accelerare_antrenare: Raport,
    mediu,
    numar_parametri: int,
    jetoane: int,
) -> None:
    """Sub grafic, doar dacă pe mașina ta compilarea a încetinit una dintre variante (clar, nu în
    limita zgomotului): câte o propoziție pentru fiecare, cu mărimea modelului (pe procesor sau în
    profilul rapid, unde modelul e mic: `numar_parametri`, `jetoane` pe lot), cauza probabilă și
    accelerarea de referință a cursului. `mediu` e mediul detectat (`are_gpu`, `profil`)."""
    for ce, (raport, cheie) in {"evaluarea unui lot": (accelerare_inferenta, "01.inferenta_accelerare"),
                                "pasul de antrenare": (accelerare_antrenare, "01.antrenare_accelerare")}.items():
        if not raport.mai_lent:
            continue
        text = (f"Pe graficul tău, la {ce}, bara compilată e mai lungă decât cea eager ({cifre.cu_unitate(raport.mediana, '×')}): "
                "aici compilarea a încetinit calculul.")
        if not mediu.are_gpu or mediu.profil == "rapid":
            text += (" Nu contrazice lecția: câștigul depinde de ce limitează modelul, iar modelul de aici e mic "
                     f"({cifre.cu_substantiv(numar_parametri, 'parametru', 'parametri')}, "
                     f"{cifre.cu_substantiv(jetoane, 'jeton', 'jetoane')} pe lot).")
        cauza = cauza_lentorii(raport)
        if cauza:
            text += f" Cauza probabilă: {cauza}."
        referinta = cifre.cifra_referinta(cheie)
        if referinta:
            text += (f" Pe {referinta['gpu']}, cu modelul de pe GPU, accelerarea e {cifre.cu_unitate(referinta['valoare'], '×')} "
                     "(cifra de referință a cursului).")
        print(text)


def inregistreaza_ocuparea(ocupari: Mapping[str, OcupareGPU]) -> None:
    """Notează în registrul de cifre, pentru fiecare variantă a pasului de antrenare („eager”,
    „compilat”), timpul de lucru al GPU-ului într-un pas și partea din buclă în care GPU-ul a
    lucrat (`ocupare_gpu`)."""
    for nume, ocupare in ocupari.items():
        cifre.inregistreaza(f"01.antrenare_gpu_lucru_{nume}_ms", ocupare.lucru_pe_pas_s * 1e3, "ms",
                            f"ReteaTransformer, pas de antrenare {nume}: timpul de lucru al GPU-ului într-un pas (profiler)")
        cifre.inregistreaza(f"01.antrenare_gpu_ocupat_{nume}", 100 * ocupare.parte, "%",
                            f"ReteaTransformer, pas de antrenare {nume}: partea dintr-o buclă de pași în care GPU-ul lucrează")


def explica_lipsa_ocuparii(are_gpu: bool) -> None:
    """Când ocuparea GPU-ului nu s-a putut măsura: pe procesor, de ce nu are sens (operațiile
    rulează chiar pe procesorul care le lansează); pe un GPU, că profilerul n-a putut urmări GPU-ul
    (de exemplu, un alt profiler era deja pornit). Apoi cifrele de referință ale cursului."""
    if are_gpu:
        print("Profilerul n-a putut urmări GPU-ul aici (de exemplu, un alt profiler era deja pornit), deci ocuparea")
        print("nu s-a măsurat. Cifrele de referință ale cursului:")
    else:
        print("Fără GPU nu ai kernel-uri GPU de cronometrat: operațiile rulează chiar pe procesorul care le lansează,")
        print("deci nu are ce aștepta. Cifrele de referință ale cursului, pe GPU:")
    cifre.afiseaza_referinta("01.antrenare_gpu_")


def in_cuvinte(raport: Raport) -> str:
    """Accelerarea măsurată și ce înseamnă ea: mai rapid, la fel (în limita zgomotului) sau mai lent."""
    if raport.in_zgomot:
        return f"{raport}: la fel, în limita zgomotului"
    return f"{raport}: varianta compilată e mai {'rapidă' if raport.mai_rapid else 'lentă'}"


def referinta_accelerarilor(are_gpu: bool) -> None:
    """Pe procesor, tipărește accelerările de referință ale cursului, la inferență și la
    antrenare, măsurate pe GPU cu modelul de pe GPU. Pe un GPU, sau dacă referința nu le are pe
    amândouă, nu tipărește nimic."""
    referinte = [cifre.cifra_referinta(c) for c in ("01.inferenta_accelerare", "01.antrenare_accelerare")]
    if not are_gpu and all(referinte):
        print(f"   Pe {referinte[0]['gpu']}, cu modelul de pe GPU (cifrele de referință ale cursului): "
              f"{cifre.cu_unitate(referinte[0]['valoare'], '×')} la inferență, {cifre.cu_unitate(referinte[1]['valoare'], '×')} la antrenare.")
