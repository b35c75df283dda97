"""Uneltele capitolului 11 (generarea textului): dimensiunile după mașină (și drumurile de GPU, fără GPU:
un H200 cu peste un miliard de parametri în bfloat16, un T4 în float16 sub 15 GB), decodoarele (naiv, cu
cache care crește, cu cache static, refolosit cu valori vechi) care dau aceleași jetoane, decodarea statică
compilată o singură dată pentru toate pozițiile, recompilările cache-ului care crește, octeții unui pas și
plafonul, stratul int8 (memoria, rotunjirea, cele două forme), citirea codului generat, calitatea și
propozițiile tipărite (țintele de pe GPU, „peste plafon”, loturile), în formatul cursului.

Decodoarele și modelele sunt construite o dată pe modul (fixturi); nimic de aici nu compilează cu Inductor:
numărătorile de grafuri folosesc backend-ul „eager” (gărzile le decide Dynamo, oricare ar fi backend-ul)."""

import types

import matplotlib
import pytest
import torch
import torch.nn.functional as F

matplotlib.use("Agg")

from curs_compilare import cifre  # noqa: E402
from curs_compilare.capitole import cap11_generare as gen11  # noqa: E402
from curs_compilare.cifre import probleme_de_format  # noqa: E402
from curs_compilare.concluzii import contradictii  # noqa: E402
from curs_compilare.masurare import Comparatie, Masuratoare  # noqa: E402
from curs_compilare.masurare_compilare import invelis_nou  # noqa: E402
from curs_compilare.modele import ConfiguratieTransformer, ReteaTransformer  # noqa: E402


def _format_bun(text: str) -> None:
    assert not probleme_de_format(text), probleme_de_format(text)
    assert not contradictii(text), contradictii(text)
    assert "\u015f" not in text and "\u0163" not in text


@torch.no_grad()
def _naiv(model, prompt, jetoane_noi):
    secventa = prompt
    for _ in range(jetoane_noi):
        secventa = torch.cat([secventa, model(secventa)[:, -1:].argmax(dim=-1)], dim=1)
    return secventa


@pytest.fixture(scope="module")
def model():
    """Un model mic, cu logit-urile departe unele de altele (capul de ieșire mărit): argmax-ul nu se schimbă la
    rotunjirile altei ordini a operațiilor."""
    torch.manual_seed(0)
    m = ReteaTransformer(ConfiguratieTransformer(vocabular=40, dim_model=16, nr_capete=2, nr_straturi=2, lungime=24))
    with torch.no_grad():
        for p in m.parameters():
            p.normal_(0, 0.3)
        m.iesire.weight.mul_(10)
    return m.eval().requires_grad_(False)


# ---------------------------------------------------------------------------------------------
# Dimensiunile și drumurile de GPU
# ---------------------------------------------------------------------------------------------


def test_parametrii_socotiti_din_configuratie():
    for c in (ConfiguratieTransformer(vocabular=40, dim_model=16, nr_capete=2, nr_straturi=2, lungime=24),
              ConfiguratieTransformer(vocabular=100, dim_model=32, nr_capete=4, nr_straturi=3, lungime=10)):
        assert gen11._parametri_configuratie(c) == ReteaTransformer(c).numar_parametri()


def test_marimile_pe_procesor_in_profilul_rapid(monkeypatch):
    monkeypatch.setenv("CURS_PROFIL", "rapid")
    marimi = gen11.marimi_capitol(types.SimpleNamespace(are_gpu=False, bf16_nativ=False))
    assert marimi.tip == torch.float32 and marimi.dispozitiv == "cpu"
    assert marimi.viteza.lungime == marimi.prompt + marimi.jetoane_noi
    assert marimi.prompt_calitate + marimi.jetoane_calitate <= marimi.calitate.lungime
    assert any((l, s) == (marimi.viteza.dim_model, marimi.viteza.nr_straturi) for l, s in marimi.marimi_model)
    assert marimi.loturi[0] == 1 and gen11.mod_decodare(False) is None and gen11.mod_decodare(True) == "reduce-overhead"
    _format_bun(marimi.descriere())


def _pe_gpu(monkeypatch, mare: bool):
    monkeypatch.setenv("CURS_PROFIL", "complet")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(gen11, "gpu_mare", lambda: mare)


def test_pe_un_h200_modelul_de_viteza_trece_de_un_miliard_in_bfloat16(monkeypatch):
    _pe_gpu(monkeypatch, mare=True)
    marimi = gen11.marimi_capitol(types.SimpleNamespace(are_gpu=True, bf16_nativ=True))
    assert marimi.tip == torch.bfloat16 and marimi.dispozitiv == "cuda"
    parametri = gen11._parametri_configuratie(marimi.viteza)
    assert parametri >= gen11.PARAMETRI_MINIM_TINTA
    assert marimi.viteza.dim_model % marimi.viteza.nr_capete == 0
    assert (marimi.viteza.dim_model, marimi.viteza.nr_straturi) == marimi.marimi_model[-1]
    assert "miliarde de parametri" in marimi.descriere()
    _format_bun(marimi.descriere())


def test_pe_un_t4_float16_si_totul_incape_in_15_gb(monkeypatch):
    """Pe un T4: float16; greutățile, copiile lor int8 (două forme), cache-urile loturilor și vârful produsului de
    matrice încap împreună în 15 GB."""
    _pe_gpu(monkeypatch, mare=False)
    marimi = gen11.marimi_capitol(types.SimpleNamespace(are_gpu=True, bf16_nativ=False))
    assert marimi.tip == torch.float16
    v = marimi.viteza
    parametri = gen11._parametri_configuratie(v)
    greutati = 2 * parametri
    int8 = 2 * parametri  # două copii int8, cu scalele lor, cel mult câte un octet pe parametru
    cache = sum(2 * v.nr_straturi * lot * v.lungime * v.dim_model * 2 for lot in marimi.loturi)
    matrice = 3 * 8192 * 8192 * 2
    assert greutati + int8 + cache + matrice < 15e9, (greutati + int8 + cache + matrice) / 1e9


# ---------------------------------------------------------------------------------------------
# Decodoarele
# ---------------------------------------------------------------------------------------------


def test_decodoarele_dau_jetoanele_buclei_naive(model):
    generator = torch.Generator().manual_seed(1)
    for lot, lungime_prompt, jetoane in ((1, 1, 12), (2, 5, 10)):
        prompt = torch.randint(0, 40, (lot, lungime_prompt), generator=generator)
        asteptat = _naiv(model, prompt, jetoane)
        assert torch.equal(gen11.genereaza_crescator(gen11.DecodorCrescator(model), prompt, jetoane), asteptat)
        static = gen11.DecodorStatic(model, lot=lot, lungime_maxima=lungime_prompt + jetoane)
        assert torch.equal(gen11.genereaza(static, static, prompt, jetoane), asteptat)
        # același cache, refolosit: valorile rămase de la generarea de dinainte sunt mascate
        alt_prompt = torch.randint(0, 40, (lot, lungime_prompt), generator=generator)
        assert torch.equal(gen11.genereaza(static, static, alt_prompt, jetoane), _naiv(model, alt_prompt, jetoane))


def test_scrie_in_cache_pe_loc_si_masca_cauzala():
    cache_k, cache_v = torch.full((2, 3, 7, 4), 9.0), torch.full((2, 3, 7, 4), 9.0)
    k, v = torch.randn(2, 3, 3, 4), torch.randn(2, 3, 3, 4)
    adresa = cache_k.data_ptr()
    masca = gen11.scrie_in_cache(cache_k, cache_v, k, v, torch.tensor([2, 3, 4]))
    assert cache_k.data_ptr() == adresa and torch.equal(cache_k[:, :, 2:5], k) and torch.equal(cache_v[:, :, 2:5], v)
    assert bool((cache_k[:, :, :2] == 9).all()) and bool((cache_k[:, :, 5:] == 9).all())
    assert masca.dtype == torch.bool and masca.shape == (3, 7)
    assert torch.equal(masca, torch.arange(7)[None, :] <= torch.tensor([2, 3, 4])[:, None])


def test_lungimea_maxima_nu_trece_de_tabelul_pozitiilor(model):
    with pytest.raises(ValueError, match="înglobări de poziție"):
        gen11.DecodorStatic(model, lungime_maxima=model.configuratie.lungime + 1)


def test_decodarea_statica_se_compileaza_o_data_pentru_toate_pozitiile(model):
    """Umplerea și decodarea, compilate separat (`fullgraph=True`, `dynamic=False`): câte un graf, apoi nicio
    recompilare până la ultimul loc din cache, iar jetoanele sunt ale buclei naive."""
    from torch._dynamo.utils import counters

    static = gen11.DecodorStatic(model, lungime_maxima=20)
    decodare = torch.compile(invelis_nou(static, "test_decodare"), backend="eager", fullgraph=True, dynamic=False)
    umplere = torch.compile(invelis_nou(static, "test_umplere"), backend="eager", fullgraph=True, dynamic=False)
    prompt = torch.randint(0, 40, (1, 4), generator=torch.Generator().manual_seed(3))
    inainte = counters["stats"]["unique_graphs"]
    gen11.genereaza(umplere, decodare, prompt, 16)
    assert counters["stats"]["unique_graphs"] - inainte == 2
    with torch.compiler.set_stance("fail_on_recompile"):
        rezultat = gen11.genereaza(umplere, decodare, prompt, 16)
    assert torch.equal(rezultat, _naiv(model, prompt, 16))


def test_recompilarile_cache_ului_care_creste(model):
    prompt = torch.randint(0, 40, (1, 3), generator=torch.Generator().manual_seed(4))
    antrenat = types.SimpleNamespace(model=model)
    static, implicit = gen11.recompilari_cache_crescut(antrenat, prompt, 14)
    assert static.dynamic is False and static.grafuri == 8 and static.rulari_prin_grafuri == 8 and static.pasi == 13
    assert implicit.grafuri == 2 and implicit.rulari_prin_grafuri == implicit.pasi
    assert static.jetoane_corecte and implicit.jetoane_corecte
    assert "size mismatch at index 2" in static.garzi[0] and not static.garzi[0].startswith("0/")
    assert "stratul 0" in gen11._garda_explicata(static.garzi[0])


def test_recompilarile_tiparite(capsys, model):
    rezultate = [gen11.Recompilari(False, 13, 8, 8, ("tensor 'argumente[2][1][0]' size mismatch at index 2. expected 3, actual 4",), True),
                 gen11.Recompilari(None, 13, 2, 13, ("tensor 'argumente[2][0][1]' size mismatch at index 2. expected 3, actual 4",), True)]
    gen11.arata_recompilarile(rezultate)
    iesire = capsys.readouterr().out
    assert "5 pași au rulat eager" in iesire and "stratul 1, cheile" in iesire and "stratul 0, valorile" in iesire
    assert "simbolică" in iesire
    _format_bun(iesire)


# ---------------------------------------------------------------------------------------------
# Octeții și plafonul
# ---------------------------------------------------------------------------------------------


def test_octetii_unui_pas(model):
    octeti = gen11.octeti_modelului(model)
    c = model.configuratie
    inglobari = (c.vocabular + c.lungime) * c.dim_model
    assert octeti.greutati == 4 * (model.numar_parametri() - inglobari)
    assert octeti.randuri_inglobare == 2 * 4 * c.dim_model
    assert octeti.kv_pe_pozitie == 2 * c.nr_straturi * c.dim_model * 4
    assert octeti.pe_pas(0) == octeti.greutati + octeti.randuri_inglobare + octeti.kv_pe_pozitie
    assert octeti.pe_pas(9, lot=3) == octeti.greutati + 3 * (octeti.randuri_inglobare + 10 * octeti.kv_pe_pozitie)
    assert octeti.mediu_pe_pas(4, 3) == pytest.approx(octeti.pe_pas(5))
    assert octeti.cu_tot_cache_ul(20) == octeti.pe_pas(19)
    assert gen11.plafon_jetoane(2e9, 4000, lot=2) == pytest.approx(4000.0)
    int8 = gen11.octeti_modelului(gen11.cuantizeaza_modelul(model))
    assert int8.kv_pe_pozitie == octeti.kv_pe_pozitie and octeti.greutati / int8.greutati > 2.5


def test_jetoane_pe_s_cu_de():
    assert gen11.jetoane_pe_s(25) == "25 de jetoane/s"
    assert gen11.jetoane_pe_s(12.5) == "12,5 jetoane/s"
    assert gen11.jetoane_pe_s(1204.4) == "1 204 jetoane/s" and gen11.jetoane_pe_s(1234) == "1 234 de jetoane/s"
    assert gen11.jetoane_pe_s(1220) == "1 220 de jetoane/s"
    assert gen11._parametri_text(1_410_000_000) == "1,41 miliarde de parametri"
    assert gen11._parametri_text(1_000_000_000) == "1 miliard de parametri"
    assert gen11._parametri_text(16_800_000) == "16,8 milioane de parametri"


# ---------------------------------------------------------------------------------------------
# int8
# ---------------------------------------------------------------------------------------------


def test_stratul_int8_rotunjeste_pe_randuri_si_tine_doar_int8():
    torch.manual_seed(5)
    liniar = torch.nn.Linear(37, 9)
    with torch.no_grad():
        liniar.weight.mul_(torch.logspace(-3, 0, 9)[:, None])
        liniar.weight[4] = 0
    for forma in ("liniar", "reducere"):
        strat = gen11.LiniarInt8(liniar, forma)
        assert strat.greutate.dtype == torch.int8 and strat.scala.shape == (9,)
        refacuta = strat.greutate.float() * strat.scala[:, None]
        pas = liniar.weight.abs().amax(dim=1) / 127
        assert bool(((refacuta - liniar.weight).abs().amax(dim=1) <= pas / 2 + 1e-7).all())
        assert not torch.isnan(refacuta).any()
        for forma_x in ((1, 37), (1, 1, 37), (4, 37), (2, 3, 37)):
            x = torch.randn(forma_x)
            torch.testing.assert_close(strat(x), F.linear(x, refacuta, liniar.bias), rtol=1e-5, atol=1e-5)
        octeti = sum(t.numel() * t.element_size() for t in strat.buffers())
        assert octeti == 37 * 9 + 2 * 9 * 4
    with pytest.raises(ValueError, match="forma"):
        gen11.LiniarInt8(liniar, "altceva")


def test_modelul_cuantizat(model):
    cuantizat = gen11.cuantizeaza_modelul(model, "reducere")
    assert not any(isinstance(m, torch.nn.Linear) for m in cuantizat.modules())
    assert sum(isinstance(m, gen11.LiniarInt8) for m in cuantizat.modules()) == 4 * model.configuratie.nr_straturi + 1
    assert any(isinstance(m, torch.nn.Linear) for m in model.modules())  # originalul rămâne neatins
    prompt = torch.randint(0, 40, (1, 4), generator=torch.Generator().manual_seed(6))
    with torch.no_grad():
        assert float((cuantizat(prompt) - model(prompt)).abs().max()) < 0.1 * float(model(prompt).abs().max())
    static = gen11.DecodorStatic(cuantizat, lungime_maxima=16)
    assert static.cache[0].k.dtype == torch.float32
    assert torch.equal(gen11.genereaza(static, static, prompt, 8), _naiv(cuantizat, prompt, 8))


_CPP_FUZIONAT = """
cpp_fused__to_copy_add_mul_sum_0 = async_compile.cpp_pybinding(['float*', 'const int8_t*'], r'''
extern "C"  void  kernel(float* in_out_ptr0,
                       const float* in_ptr0,
                       const int8_t* in_ptr1)
{
    for(int64_t x0=0L; x0<256L; x0+=1L)
    {
        float tmp_acc0 = 0;
        auto tmp1 = at::vec::Vectorized<int8_t>::loadu(in_ptr1 + x0, 16);
    }
}
''')
"""
_CPP_CONVERSIE = """
buf0 = empty_strided_cpu((512, 256), (256, 1), torch.float32)
cpp_fused__to_copy_0 = async_compile.cpp_pybinding(['const int8_t*', 'float*'], r'''
extern "C"  void  kernel(const int8_t* in_ptr0, float* out_ptr0)
{
    out_ptr0[0] = in_ptr0[0];
}
''')
        extern_kernels.mm(reinterpret_tensor(arg1_1, (1, 256), (256, 1), 0), buf0, out=buf1)
"""
_TRITON_FUZIONAT = """
triton_red_fused__to_copy_mul_sum_0 = async_compile.triton('triton_red_fused__to_copy_mul_sum_0', '''
@triton_heuristics.reduction(
    triton_meta={'signature': {'in_ptr0': '*bf16', 'in_ptr1': '*i8', 'out_ptr0': '*bf16'}},
)
@triton.jit
def triton_red_fused__to_copy_mul_sum_0(in_ptr0, in_ptr1, out_ptr0, xnumel, r0_numel):
    tmp0 = tl.load(in_ptr1 + r0_1)
    tmp1 = tl.sum(tmp0, 1)
''', device_str='cuda')
"""
_INGHETAT = """
cpp_fused_add_mul_sum_0 = async_compile.cpp_pybinding(['float*', 'const float*'], r'''
extern "C"  void  kernel(float* in_out_ptr0, const float* in_ptr0)
{
    float tmp_acc0 = 0;
}
''')
        cpp_fused_add_mul_sum_0(buf1, arg3_1, _frozen_param3)
"""


@pytest.mark.parametrize("cod, fuzionate, conversii, inghetat, incepe", [
    (_CPP_FUZIONAT, 1, 0, False, "fuzionat"),
    (_CPP_CONVERSIE, 0, 1, False, "nefuzionat"),
    (_TRITON_FUZIONAT, 1, 0, False, "fuzionat"),
    (_INGHETAT, 0, 0, True, "înghețat"),
    ("buf0 = torch.ops.aten._weight_int8pack_mm(x, w, s)\n", 1, 0, False, "fuzionat"),
])
def test_analiza_codului_int8(cod, fuzionate, conversii, inghetat, incepe):
    analiza = gen11.analizeaza_codul_int8(cod, "forma")
    assert (analiza.citiri_fuzionate, analiza.conversii_separate, analiza.inghetat) == (fuzionate, conversii, inghetat)
    assert analiza.verdict.startswith(incepe)
    if conversii:
        assert analiza.produse_biblioteca == 1


def test_codul_int8_tiparit(capsys):
    analize = [gen11.analizeaza_codul_int8(c, e) for c, e in ((_CPP_CONVERSIE, "F.linear"), (_CPP_FUZIONAT, "reducere"),
                                                              (_INGHETAT, "înghețat"))]
    gen11.arata_codul_int8(analize, pe_gpu=False)
    iesire = capsys.readouterr().out
    assert "citește int8 și scrie greutatea în float" in iesire and "citește int8 și face suma produsului" in iesire
    assert "int8_t" in iesire and "produs de matrice din bibliotecă" in iesire
    _format_bun(iesire)


def test_calitatea_pe_un_model_care_prezice(model):
    """Pe modelul cu logit-uri depărtate, int8 păstrează predicția de top aproape peste tot, cu un KL mic și
    pozitiv; rezultatele se tipăresc în formatul cursului."""
    secvente = torch.randint(0, 40, (4, 24), generator=torch.Generator().manual_seed(7))
    calitate = gen11._calitate("modelul", model, secvente[:, :-1], secvente[:, 1:], secvente[:1, :4], 8, _naiv)
    assert calitate.pozitii == 4 * 23 and 0.9 <= calitate.potrivire_top1 <= 1
    assert 0 <= calitate.kl_mediu <= calitate.kl_maxim < 0.1 and calitate.generate == 8
    assert gen11._kl(0.000123) == "0,00012" and gen11._kl(0.5) == "0,5" and gen11._kl(0) == "0"


def test_calitatea_tiparita(capsys):
    rezultate = [gen11.Calitate("modelul antrenat", 512, 0.998, 0.0004, 0.01, 0.99, 0.988, 40, 40),
                 gen11.Calitate("același model, neantrenat", 512, 0.95, 0.00001, 0.0001, 0.004, 0.004, 38, 40)]
    gen11.arata_calitatea(rezultate, "float32")
    iesire = capsys.readouterr().out
    assert "nu prezice nimic" in iesire and "mai des decât la modelul antrenat" in iesire
    _format_bun(iesire)


# ---------------------------------------------------------------------------------------------
# Propozițiile tipărite, cu măsurători construite de mână (și drumurile de GPU)
# ---------------------------------------------------------------------------------------------


def _masuratoare(secunde, nume=""):
    return Masuratoare(secunde, secunde * 0.99, secunde * 1.01, 10, "test", eticheta=nume, mediane_runde=(secunde,) * 5)


def _viteza(timpi: dict, octeti: float, gbps: float, parametri: int, lot: int = 1):
    comparatie = Comparatie({n: _masuratoare(t, n) for n, t in timpi.items()}, "perete")
    return gen11.Viteza(comparatie, lot, 10, {n: octeti for n in timpi}, gbps, parametri, octeti_cu_tot_cache_ul=octeti * 1.2,
                        compilare_s=1.5)


_VARIANTE = ("naivă, eager", "cache care crește, eager", "cache static, eager", "cache static, compilat")


def test_viteza_pe_procesor_nu_judeca_tintele(capsys, cifre_notate):
    viteza = _viteza(dict(zip(_VARIANTE, (0.5, 0.2, 0.18, 0.05))), 1e8, 50.0, 2e7)
    gen11.arata_viteza(viteza, pe_gpu=False)
    iesire = capsys.readouterr().out
    assert "nu judecă țintele" in iesire and "de 3,6 ori mai rapidă decât cea eager" in iesire
    assert "de 4 ori mai rapidă decât bucla eager cu cache care crește" in iesire
    assert "Referința cursului" in iesire
    _format_bun(iesire)
    chei = {c["cheie"] for c in cifre_notate()}
    assert {"11.compilat_parte_din_plafon", "11.compilat_fata_de_crescut", "11.viteza_compilare_s"} <= chei


def test_viteza_peste_plafon_spune_de_ce(capsys):
    # 10 pași de 1 MB în 1 ms: 10 GB/s, peste un plafon de 5 GB/s
    viteza = _viteza({"cache static, eager": 0.004, "cache static, compilat": 0.001}, 1e6, 5.0, 1e6)
    gen11.arata_viteza(viteza, pe_gpu=False)
    iesire = capsys.readouterr().out
    assert "Peste plafon" in iesire and "cache-urile procesorului" in iesire
    _format_bun(iesire)


@pytest.mark.parametrize("compilat_s, atinsa", [(0.0075, False), (0.0042, True)])
def test_tintele_pe_un_gpu_mare(monkeypatch, capsys, compilat_s, atinsa):
    """Pe un GPU mare, cu un model de peste un miliard de parametri: ținta de 80% din lățimea de bandă (10 pași
    de 2,8 GB la 8 000 GB/s: 3,5 ms) și cea de 4× față de cache-ul care crește; unde nu e atinsă, cu cât."""
    monkeypatch.setattr(gen11, "gpu_mare", lambda: True)
    timpi = dict(zip(_VARIANTE, (0.5, 0.03, 0.02, compilat_s)))
    timpi = {**{n: t for n, t in timpi.items() if n != gen11.VARIANTA_COMPILATA}, gen11.VARIANTA_FARA_GRAFURI: 0.012,
             gen11.VARIANTA_COMPILATA: compilat_s}
    viteza = _viteza(timpi, 2.8e9, 8000.0, 1.4e9)
    viteza.bucla_compilata = None
    gen11.arata_viteza(viteza, pe_gpu=True)
    iesire = capsys.readouterr().out
    assert "Decodarea cu grafuri CUDA (reduce-overhead) e de" in iesire
    if atinsa:
        assert "din lățimea de bandă): atinsă" in iesire and "(cel puțin 4×): atinsă" in iesire
    else:
        assert "nu e atinsă, lipsesc" in iesire and "puncte procentuale" in iesire
        assert "(cel puțin 4×): atinsă" in iesire
    _format_bun(iesire)


def test_int8_pe_gpu_spune_cauza_si_tinta(monkeypatch, capsys):
    monkeypatch.setattr(gen11, "gpu_mare", lambda: True)
    timpi = {"bfloat16, compilat": 0.01, "int8, F.linear, fără coordinate_descent_tuning": 0.08,
             "int8, F.linear, compilat": 0.0062, "int8, reducere explicită, compilat": 0.006}
    comparatie = Comparatie({n: _masuratoare(t, n) for n, t in timpi.items()}, "gpu")
    octeti = {n: (2.8e9 if n.startswith("bf") else 1.45e9) for n in timpi}
    rezultat = gen11.RezultatInt8(gen11.Viteza(comparatie, 1, 10, octeti, 4000.0, int(1.4e9)), "bfloat16, compilat",
                                  int(2.8e9), int(1.4e9), torch.bfloat16)
    analize = [gen11.analizeaza_codul_int8(_TRITON_FUZIONAT, "F.linear"), gen11.analizeaza_codul_int8(_TRITON_FUZIONAT, "reducere")]
    gen11.arata_int8(rezultat, pe_gpu=True, analize=analize)
    iesire = capsys.readouterr().out
    assert "fără coordinate_descent_tuning, Inductor lasă produsul" in iesire
    assert "ținta (int8 de cel puțin 1,5× față de bfloat16)" in iesire and "„int8, reducere explicită, compilat”: atinsă" in iesire
    _format_bun(iesire)


def test_int8_pe_procesor_cauza_din_codul_generat(capsys):
    timpi = {"float32, compilat": 0.01, "int8, F.linear, compilat": 0.05, "int8, reducere explicită, compilat": 0.007}
    comparatie = Comparatie({n: _masuratoare(t, n) for n, t in timpi.items()}, "perete")
    octeti = {n: (4e7 if n.startswith("float") else 1e7) for n in timpi}
    rezultat = gen11.RezultatInt8(gen11.Viteza(comparatie, 1, 10, octeti, 20.0, int(1e7)), "float32, compilat",
                                  int(4e7), int(1e7), torch.float32)
    analize = [gen11.analizeaza_codul_int8(_CPP_CONVERSIE, "F.linear"), gen11.analizeaza_codul_int8(_CPP_FUZIONAT, "reducere")]
    gen11.arata_int8(rezultat, pe_gpu=False, analize=analize)
    iesire = capsys.readouterr().out
    assert "scrie 4, apoi produsul din bibliotecă" in iesire and "nu se judecă pe procesor" in iesire
    assert "e de 1,43 ori mai rapidă decât cea float32" in iesire
    _format_bun(iesire)


def test_loturile_si_marimile_tiparite(capsys):
    randuri = [gen11.RandLot(1, _masuratoare(0.01), 10, 1200.0, 90000.0), gen11.RandLot(8, _masuratoare(0.011), 10, 9000.0, 90000.0),
               gen11.RandLot(64, _masuratoare(0.05), 10, 60000.0, 30000.0)]
    gen11.arata_loturile(randuri)
    iesire = capsys.readouterr().out
    assert "aproape cât lotul" in iesire and "mai încet decât lotul" in iesire and "De la lotul 64" in iesire
    _format_bun(iesire)
    gen11.arata_loturile([gen11.RandLot(1, _masuratoare(0.05), 10, 1200.0, 90000.0),
                          gen11.RandLot(4, _masuratoare(0.02), 10, 4000.0, 90000.0)])
    iesire = capsys.readouterr().out
    assert "mai mult decât lotul" in iesire and "rămâne sub cel al calculului" in iesire
    _format_bun(iesire)
    gen11.arata_loturile([gen11.RandLot(4, _masuratoare(0.01), 10, 4000.0, 90000.0),
                          gen11.RandLot(16, _masuratoare(0.08), 10, 12000.0, 90000.0)])
    iesire = capsys.readouterr().out
    assert "au scăzut (×0,5)" in iesire and "sub jumătate din plafonul mai mic" in iesire and "lotul 16" in iesire
    _format_bun(iesire)
    c = ConfiguratieTransformer(vocabular=40, dim_model=16, nr_capete=2, nr_straturi=1, lungime=8)
    marimi = [gen11.RandMarime(c, 1000, 1e5, Comparatie({"eager": _masuratoare(0.02), "compilat": _masuratoare(0.01)}, "perete"), 10, 10.0),
              gen11.RandMarime(c, 10**7, 1e8, Comparatie({"eager": _masuratoare(0.13), "compilat": _masuratoare(0.12)}, "perete"), 10, 10.0)]
    gen11.arata_marimile(marimi, pe_gpu=False)
    iesire = capsys.readouterr().out
    assert "Cu cât modelul e mai mare, cu atât pasul e mai aproape de plafon" in iesire
    _format_bun(iesire)


def test_pe_procesor_fara_reluari_cuda_si_ce_arata_doar_gpu(capsys):
    if torch.cuda.is_available():
        pytest.skip("pe GPU reluările se numără")
    assert gen11.numara_reluari_cuda(lambda: None) is None
    gen11.ce_arata_doar_gpu(False)
    iesire = capsys.readouterr().out
    assert "Ce arată doar un GPU" in iesire and cifre.despre_referinta("x", "11.")[:20] in iesire
    _format_bun(iesire)


def test_exploratorul_plafonului_static(monkeypatch, capsys):
    monkeypatch.setenv("CURS_FARA_WIDGETURI", "1")
    gen11.exploreaza_plafonul(100.0, 5e11)
    iesire = capsys.readouterr().out
    assert "Un pas citește" in iesire and "limitat de memorie" in iesire
    _format_bun(iesire.split("\n", 1)[1])
