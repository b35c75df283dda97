"""Testele modulului `masurare`."""

import math
import time

import pytest
import torch

from curs_compilare import cifre, masurare


def test_gbps_si_tflops():
    assert masurare.gbps(2e9, 0.5) == pytest.approx(4.0)
    assert masurare.tflops(1e12, 0.25) == pytest.approx(4.0)


def test_masoara_o_functie_cu_durata_cunoscuta():
    m = masurare.masoara(time.sleep, 0.002, timp_minim_s=0.05, pe_gpu=False, eticheta="somn")
    assert 0.0018 < m.mediana_s < 0.006
    assert m.cuantila20_s <= m.mediana_s <= m.cuantila80_s
    assert m.numar_rulari >= 5
    assert m.unealta == "ceasul de perete, timeit" and m.ceas == "perete"
    assert "somn" in str(m) and "mediana" in str(m)


def test_masoara_face_incalzirea_inainte_de_cronometrare():
    apelari = []

    def functie_lenta_la_inceput():
        apelari.append(1)
        time.sleep(0.2 if len(apelari) == 1 else 0.001)

    m = masurare.masoara(functie_lenta_la_inceput, timp_minim_s=0.05, pe_gpu=False)
    assert m.mediana_s < 0.01


def test_timp_prima_apelare_masoara_o_singura_apelare():
    assert 0.045 < masurare.timp_prima_apelare(time.sleep, 0.05, pe_gpu=False) < 0.2


def test_numara_kerneluri_eager_pe_cpu():
    x = torch.randn(1000)
    numar = masurare.numara_kerneluri(lambda t: (t * 2 + 1).relu() * 3, x)
    assert numar.numar == 4
    assert numar.nume["aten::mul"] == 2
    assert "kernel-uri" in str(numar)


def test_plafonul_de_copiere_e_pozitiv_si_numara_citire_plus_scriere():
    plafon = masurare.masoara_plafon_copiere(numar_octeti=2**22, dispozitiv="cpu")
    assert plafon.octeti_copiati == 2**22
    asteptat = 2 * 2**22 / plafon.masuratoare.mediana_s / 1e9
    assert plafon.gbps == pytest.approx(asteptat)
    assert "GB/s" in str(plafon)


@pytest.mark.parametrize(
    "prima, eager, compilat, asteptat",
    [
        (9.0, 3.0, 1.0, 4),  # egalitate exactă
        (10.0, 3.0, 1.0, 5),
        (0.5, 1.0, 0.1, 1),  # prima apelare compilată e deja mai rapidă
        (5.0, 1.0, 1.0, None),  # nu e mai rapid: nu se amortizează
        (5.0, 1.0, 2.0, None),
    ],
)
def test_prag_rentabilitate(prima, eager, compilat, asteptat):
    assert masurare.prag_rentabilitate(prima, eager, compilat) == asteptat


def test_prag_rentabilitate_e_cel_mai_mic_n():
    for prima, eager, compilat in [(20.0, 0.01, 0.004), (3.3, 0.07, 0.02), (1e-3, 1e-4, 9e-5)]:
        n = masurare.prag_rentabilitate(prima, eager, compilat)
        assert prima + (n - 1) * compilat <= n * eager
        assert n == 1 or prima + (n - 2) * compilat > (n - 1) * eager


def test_gpu_simulat_e_asincron():
    gpu = masurare.GPUSimulat(durata_lucrare_s=0.02, durata_lansare_s=0.0, durata_compilare_s=0.0)
    start = time.perf_counter()
    gpu.lanseaza()
    gpu.lanseaza()
    dupa_lansare = time.perf_counter() - start
    gpu.sincronizeaza()
    dupa_sincronizare = time.perf_counter() - start
    assert dupa_lansare < 0.015
    assert dupa_sincronizare >= 0.039
    assert gpu.lansari == 2 and gpu.sincronizari == 1


def test_format_timp():
    assert cifre.format_timp(0.00123) == "1,23 ms"
    assert cifre.format_timp(2.5) == "2,5 s"
    assert cifre.format_timp(4.2e-6) == "4,2 µs"
    assert not math.isnan(masurare._cuantila([1.0, 2.0, 3.0], 0.5))


# ---------------------------------------------------------------------------------------------
# compara: variante intercalate, în runde, același ceas, raportul rundă cu rundă, paza la recompilări
# ---------------------------------------------------------------------------------------------


def test_compara_masoara_variantele_in_aceleasi_runde():
    ordine = []

    def rapid():
        ordine.append("rapid")
        time.sleep(0.001)

    def lent():
        ordine.append("lent")
        time.sleep(0.003)

    c = masurare.compara({"lent": lent, "rapid": rapid}, runde=5, timp_minim_s=0.05, pe_gpu=False)
    assert c.ceas == "perete" and set(c) == {"lent", "rapid"}
    assert len(c["lent"].mediane_runde) == len(c["rapid"].mediane_runde) == 5
    r = c.accelerare("lent", "rapid")
    assert r.runde == 5 and r.minim <= r.mediana <= r.maxim
    assert 1.8 < r.mediana < 4 and r.mai_rapid and not r.in_zgomot
    # variantele alternează: după încălzire, nicio variantă nu rulează toate rundele la rând
    dupa_incalzire = ordine[6:]
    schimbari = sum(1 for a, b in zip(dupa_incalzire, dupa_incalzire[1:]) if a != b)
    assert schimbari >= 5


def test_raport_in_zgomot_si_verdictele():
    assert masurare.Raport(1.01, 0.97, 1.05, 5).in_zgomot
    assert masurare.Raport(1.02, 1.01, 1.03, 5).in_zgomot  # sub 3%: la fel
    assert masurare.Raport(1.3, 1.2, 1.4, 5).mai_rapid
    assert masurare.Raport(0.8, 0.75, 0.85, 5).mai_lent
    assert str(masurare.Raport(2.31, 2.25, 2.4, 5)) == "2,31× (în 5 runde: între 2,25× și 2,4×)"
    cu_cuantile = masurare.Raport(2.31, 2.0, 2.6, 5, jos=2.25, sus=2.4)
    assert str(cu_cuantile) == "2,31× (20–80% din 5 runde: între 2,25× și 2,4×)"
    assert masurare.Raport(2.3, 2.3, 2.3, 1).interval() == "o singură rundă"


def test_intervalul_tiparit_e_cel_al_verdictului():
    """Un verdict „mai lent” nu se tipărește cu un interval care îl încadrează pe 1: se tipăresc
    cuantilele de 20% și 80% ale rundelor, după care s-a dat verdictul, nu minimul și maximul."""
    a = masurare.Masuratoare(1.0, 1.0, 1.0, 5, "u", mediane_runde=(1.0,) * 5)
    b = masurare.Masuratoare(1.3, 1.3, 1.3, 5, "u", mediane_runde=(1.35, 1.3, 1.32, 0.9, 1.31))
    r = masurare.raport_din(a, b)
    assert r.mai_lent and r.maxim > 1
    jos, sus = r.capete_verdict
    assert (jos, sus) == (r.jos, r.sus) and sus < 1
    text = r.interval()
    assert text.startswith("20–80% din 5 runde: între ")
    valori = [float(v.replace(",", ".")) for v in __import__("re").findall(r"(\d+,?\d*)×", text)]
    assert valori and all(v < 1 for v in valori), text


def test_raport_din_masuratori_fara_runde_comune_e_raportul_medianelor():
    a = masurare.Masuratoare(0.004, 0.004, 0.004, 1, "u")
    b = masurare.Masuratoare(0.002, 0.002, 0.002, 1, "u")
    r = masurare.raport_din(a, b)
    assert r.mediana == pytest.approx(2.0) and r.runde == 1


def test_compara_opreste_o_recompilare_in_timpul_cronometrarii():
    if not hasattr(torch.compiler, "set_stance"):
        pytest.skip("torch.compiler.set_stance lipsește")
    dublare = torch.compile(lambda x, k: x * k, backend="eager", dynamic=False)
    contor = [0]

    def cu_valoare_noua(x):
        contor[0] += 1
        return dublare(x, contor[0])  # altă constantă Python la fiecare apelare: recompilare

    with pytest.raises(masurare.RecompilareInMasurare, match="recompilat în timpul cronometrării"):
        masurare.masoara(cu_valoare_noua, torch.randn(8), timp_minim_s=0.01)
    torch._dynamo.reset()


def test_compara_refuza_un_ceas_necunoscut():
    with pytest.raises(ValueError, match="ceas"):
        masurare.compara({"a": lambda: None}, ceas="nisip", pe_gpu=False)


def test_masuratoarea_se_scrie_in_romana():
    m = masurare.masoara(time.sleep, 0.001, timp_minim_s=0.02, pe_gpu=False, eticheta="somn")
    text = str(m)
    assert text.startswith("somn: ") and "rulări" in text
    assert "în 5 runde" in text and "ceasul de perete" in text and "." not in text.split("(")[0]


def test_o_singura_runda_deviata_nu_schimba_verdictul():
    a = masurare.Masuratoare(1.0, 1.0, 1.0, 5, "u", mediane_runde=(1.0, 1.0, 1.0, 1.0, 1.0))
    b = masurare.Masuratoare(1.3, 1.3, 1.3, 5, "u", mediane_runde=(1.35, 1.3, 1.32, 0.9, 1.31))
    r = masurare.raport_din(a, b)  # b e mai lent în 4 runde din 5
    assert r.maxim > 1 and r.mai_lent and not r.in_zgomot


def test_compara_pasi_ficsi_numar_fix_intercalat_si_combinat():
    """Modul pentru mai multe procese: exact `runde × pasi_pe_runda` pași pe variantă, câte un
    apel al lui `inainte_de_bloc` pe bloc, variantele intercalate în altă ordine de la o rundă la
    alta, iar `combina` hotărăște durata păstrată (ca maximul dintre ranguri)."""
    from curs_compilare.masurare import compara_pasi_ficsi

    ordine, blocuri = [], []
    variante = {nume: (lambda nume=nume: ordine.append(nume)) for nume in ("a", "b", "c")}
    comparatie = compara_pasi_ficsi(variante, runde=4, pasi_pe_runda=3,
                                    inainte_de_bloc=lambda: blocuri.append(1), combina=lambda s: 0.25)
    assert len(blocuri) == 4 * 3 and len(ordine) == 4 * 3 * 3
    primele = [ordine[i] for i in range(0, len(ordine), 3)]  # prima variantă a fiecărui bloc
    assert [primele[i * 3] for i in range(4)] != ["a"] * 4  # nu mereu aceeași variantă întâi
    for nume in variante:
        m = comparatie[nume]
        assert m.numar_rulari == 12 and m.mediane_runde == (0.25,) * 4 and m.mediana_s == 0.25
        assert m.ceas == "perete"
    assert comparatie.accelerare("a", "b").mediana == 1.0
